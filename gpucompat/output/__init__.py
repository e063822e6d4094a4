"""Every renderer, one module each, and renderers.py, the table of which formats each kind of
document has and `emit`, the one way a command writes one: records.py (check's versioned JSON
document, every check renderer's input), terminal.py, sarif.py, github.py, model_explorer.py,
html.py + html_view.py (the report, templates in reports/templates/), fix_view.py, verify_view.py,
diff_view.py, confirm_view.py and doctor_view.py (those commands' views), text.py (untrusted text
made printable) and destination.py (stdout or an atomic file). Renderers import the pipeline's
results, never a command."""
