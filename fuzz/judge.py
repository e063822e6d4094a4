"""What counts as a failure when a command meets a hostile model (docs/robustness.md): the
contract is a clean result (exit 0 or 1) or one line on stderr with exit 2, within the time
limit, within the memory bound, with output that is what it claims to be, and with the input and
its directory left as they were."""

from __future__ import annotations

import json
import os
import re

from fuzz.runner import EXIT_ESCAPED, Outcome

# The reference interpreter (TFLite's C++ runtime, used by verify and fix) logs this on stderr
# whenever it starts; it is the runtime's line, not the command's.
_RUNTIME_LOG = re.compile(r"^INFO: (Created TensorFlow Lite|Initialized TensorFlow Lite)")
_PY_WARNING = re.compile(r"\b\w+Warning: ")


def error_lines(stderr: str) -> list[str]:
    """Non-empty stderr lines, without the reference interpreter's start-up log."""
    return [line for line in stderr.splitlines() if line.strip() and not _RUNTIME_LOG.match(line)]


def failures(outcome: Outcome, *, stdout_format: str, rss_bound_mb: float, model_before: bytes,
             model_path: str, html_path: str | None) -> list[str]:
    """The contract's clauses this outcome breaks (an empty list: the case passed).

    `stdout_format` is "text", "json", "github" or "html": the machine formats and the HTML
    report carry a model's error in the document itself (an error record, an ::error annotation,
    the page), so their exit 2 may leave stderr empty, but the document must then be there and
    well formed."""
    found = []
    if outcome.timed_out:
        found.append("hang")
    if outcome.signal is not None:
        found.append(f"crash (signal {outcome.signal})")
    if outcome.exit_code is not None and outcome.exit_code not in (0, 1, 2):
        found.append("escaped exception" if outcome.exit_code == EXIT_ESCAPED else f"exit code {outcome.exit_code}")
    lines = error_lines(outcome.stderr)
    if "Traceback (most recent call last)" in outcome.stderr:
        found.append("traceback")
    if any("internal error" in line for line in lines):
        found.append("internal error")
    in_document = (stdout_format != "text" and outcome.stdout.strip() and not lines
                   and (stdout_format != "html" or (html_path is not None and os.path.exists(html_path))))
    if outcome.exit_code == 2 and len(lines) != 1 and not in_document:
        found.append(f"exit 2 with {len(lines)} stderr lines")
    if any(_PY_WARNING.search(line) for line in lines):
        found.append("python warning on stderr")
    if outcome.peak_rss_mb > rss_bound_mb:
        found.append(f"peak memory {outcome.peak_rss_mb:.0f} MB")
    if "\x1b" in outcome.stdout or "\x1b" in outcome.stderr:
        found.append("escape sequence from the model reached the terminal")
    if stdout_format == "json" and (outcome.exit_code in (0, 1) or in_document):
        try:
            json.loads(outcome.stdout)
        except ValueError:
            found.append("stdout is not JSON")
    if stdout_format == "github" and any(not line.startswith("::") for line in outcome.stdout.splitlines()):
        found.append("a line of GitHub output is not a workflow command")
    if html_path and os.path.exists(html_path):
        with open(html_path, encoding="utf-8", errors="replace") as f:
            if "<script>alert(1)" in f.read():
                found.append("model markup reached the HTML unescaped")
    if not os.path.exists(model_path):
        found.append("input model removed")
    else:
        with open(model_path, "rb") as f:
            if f.read() != model_before:
                found.append("input model changed")
    directory = os.path.dirname(model_path)
    if any(name.startswith(".gpucompat-") for name in os.listdir(directory)):
        found.append("temporary file left behind")
    return found
