"""What LiteRT's real GPU accelerator computed for each op form of the numerics calibration grid
(tests/numerics_grid.py), as data: litert_gpu.json holds, per form key (rules/forms.py), the
verdict at fp32 and at the accelerator's default precision (fp16) with its evidence (cosine and
max error relative to the largest CPU output, and the grid form that showed it).

The GPU005 rule reads it; the fidelity suite re-runs the grid and fails when the accelerator
and this file disagree."""

from __future__ import annotations

import json
import os
from functools import lru_cache

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "litert_gpu.json")
PRECISIONS = ("fp32", "fp16")


@lru_cache(maxsize=1)
def load() -> dict:
    """The recorded calibration: {"litert", "driver", "profiles", "forms": {key: {precision: ...}}}."""
    with open(PATH) as f:
        return json.load(f)


def observed(key: str | None) -> dict | None:
    """The recorded verdicts of one form key ({"fp32": {...}, "fp16": {...}}), None when the grid
    has no such form."""
    return None if key is None else load()["forms"].get(key)


def write(forms: dict[str, dict], driver: str, litert: str | None = None) -> None:
    """Record the grid's verdicts (atomically), for the profiles the accelerator stands for."""
    from importlib.metadata import version

    doc = {"litert": litert or version("ai-edge-litert"), "driver": driver, "profiles": ["litert-mldrift"],
           "thresholds": "wrong: cosine < 0.9999 or max error > 1e-3 of the largest output at fp32; "
                         "cosine < 0.999 or max error > 1e-2 at fp16", "forms": forms}
    tmp = PATH + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, PATH)
    load.cache_clear()
