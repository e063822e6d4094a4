"""Every renderer, one module each: records.py (check's versioned JSON document, every check
renderer's input), terminal.py, sarif.py, github.py, model_explorer.py, html.py + html_view.py (the
report, templates in reports/templates/), fix_view.py, verify_view.py and confirm_view.py (those
commands' JSON records and terminal views), text.py (untrusted text made printable) and
destination.py (stdout or an atomic file). Renderers import the pipeline's results, never a command."""
