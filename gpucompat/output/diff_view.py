"""`gpucompat diff`'s views: the JSON document and the terminal lines, one per measure that moved
and one per new finding, regressions marked."""

from __future__ import annotations

from gpucompat.analyses.model_diff import Change
from gpucompat.text import printable


def document(old: str, new: str, profile: str, changes: list[Change], added: list[dict],
             failing: list[dict]) -> dict:
    """The JSON document of one diff: the measures that moved and the new findings, each saying
    whether it is a regression (`failing`: the new findings at or above --fail-on)."""
    return {"old": old, "new": new, "profile": profile,
            "regression": any(c.regression for c in changes) or bool(failing),
            "changes": [{"measure": c.measure, "old": c.old, "new": c.new, "worse": c.worse,
                         "regression": c.regression} for c in changes],
            "new_findings": [{**f, "regression": f in failing} for f in added]}


def terminal(doc: dict) -> str:
    """The document as lines for a person; names from the models are shown printable."""
    lines = [f"{doc['old']} -> {doc['new']}  [{doc['profile']}]"]
    lines += [f"  {Change(**c).describe()}" for c in doc["changes"]]
    for f in doc["new_findings"]:
        mark = " (regression)" if f["regression"] else ""
        lines.append(f"  new finding {f['code']} {f['severity']}{mark}: {f['message']}")
    if not doc["changes"] and not doc["new_findings"]:
        lines.append("  no change")
    lines.append(verdict(doc))
    return "".join(printable(line) + "\n" for line in lines)


def verdict(doc: dict) -> str:
    """The last line: whether the new version regresses (exit 1) and how many measures moved."""
    worse = sum(1 for c in doc["changes"] if c["regression"]) + sum(1 for f in doc["new_findings"] if f["regression"])
    moved = len(doc["changes"])
    if doc["regression"]:
        return f"REGRESSION: {worse} regression(s) in the new version (exit 1)"
    if moved or doc["new_findings"]:
        return f"no regression: {moved} measure(s) moved, none past the thresholds"
    return "no regression: nothing moved"
