"""The calibrated profile file `gpucompat calibrate` writes (rules/support/profile_file.py reads it
and says what it holds)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone

from gpucompat.calibrate.measure import Measurement
from gpucompat.rules.support.profile_file import BASE, FORMAT


def document(m: Measurement, forms: dict | None = None, when: datetime | None = None) -> dict:
    """The file's contents for a measurement, with the numerics grid's record (grid.record) when
    it ran."""
    when = when or datetime.now(timezone.utc)
    return {"format": FORMAT, "base": BASE, "litert": m.litert, "device": m.device, "driver": m.driver,
            "calibrated": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "points": [p.record() for p in m.points],
            **({"grid": forms} if forms is not None else {})}


def write(m: Measurement, path: str, forms: dict | None = None) -> dict:
    """Write the profile file of `m` (and the grid's record `forms`) to `path` atomically; return
    its contents."""
    doc = document(m, forms)
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return doc
