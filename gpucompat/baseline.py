"""Baselines: record today's findings, then fail only on new ones.

A finding is identified by the model path (relative to the baseline file, so a repository's
baseline works from any checkout), the profile, the rule code and the message. A finding counts
as known while the baseline holds as many findings with that identity as the run produces."""

from __future__ import annotations

import json
import os
from collections import Counter

from gpucompat.errors import GpucompatError

VERSION = 1


def _key(baseline_path: str, rec: dict, finding: dict) -> tuple[str, str, str, str]:
    base = os.path.dirname(os.path.abspath(baseline_path))
    rel = os.path.relpath(os.path.abspath(rec["path"]), base).replace(os.sep, "/")
    return rel, rec["profile"], finding["code"], finding["message"]


def render(baseline_path: str, recs: list[dict]) -> str:
    """The baseline file's text for the findings of `recs`."""
    keys = sorted(_key(baseline_path, rec, f) for rec in recs for f in rec["findings"])
    entries = [{"path": p, "profile": prof, "code": c, "message": m} for p, prof, c, m in keys]
    return json.dumps({"gpucompat_baseline": VERSION, "findings": entries}, indent=2) + "\n"


def apply(baseline_path: str, recs: list[dict]) -> None:
    """Mark the findings of `recs` that the baseline file already knows (`baselined: true`)."""
    known = Counter(_read(baseline_path))
    for rec in recs:
        for f in rec["findings"]:
            key = _key(baseline_path, rec, f)
            if known[key] > 0:
                known[key] -= 1
                f["baselined"] = True


def _read(path: str) -> list[tuple[str, str, str, str]]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        if doc.get("gpucompat_baseline") != VERSION:
            raise ValueError(f"not a version {VERSION} gpucompat baseline")
        return [(e["path"], e["profile"], e["code"], e["message"]) for e in doc["findings"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise GpucompatError(f"{path}: cannot read the baseline: {e}") from None
