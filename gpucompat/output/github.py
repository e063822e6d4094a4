"""GitHub Actions workflow commands: one `::error` / `::warning` / `::notice` annotation per finding
that is not in the baseline, and one per model that could not be checked."""

from __future__ import annotations

from gpucompat.output.records import shown
from gpucompat.text import printable

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    """Escape a command's message (GitHub's workflow-command encoding of '%', CR and LF), then
    write any other control or separator character from a model's names as an escape: a
    vertical tab or U+2028 would otherwise start a line that is not a workflow command."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _prop(text: str) -> str:
    """Escape a command property value (also ':' and ',')."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(doc: dict) -> str:
    """The annotation lines of a gpucompat JSON document."""
    lines = []
    for rec in doc["models"]:
        path = _prop(rec["path"])
        if rec["error"]:
            lines.append(f"::error file={path},title=gpucompat::{_data(rec['error'])}")
            continue
        for f in rec["findings"]:
            if not f.get("baselined"):
                title = _prop(f"{f['code']} ({shown(rec)})")
                lines.append(f"::{COMMAND[f['severity']]} file={path},title={title}::{_data(f['message'])}")
    return "".join(line + "\n" for line in lines)
