"""What LiteRT's real GPU accelerator computed for each op form of the numerics calibration grid
(gpucompat/calibrate/grid.py), as data: litert_gpu.json holds, per form key (rules/support/forms.py), the
verdict at fp32 and at the accelerator's default precision (fp16) with its evidence (cosine and
max error relative to the largest CPU output, the grid form that showed it, and the runtime's own
error when a shader failed to build), measured on an adapter with 16-bit shader floats (lavapipe,
like most phone GPUs); a key also measured on an adapter without them (SwiftShader) carries that
verdict too ("without_f16"), so a form wrong on one kind of GPU only says which.

The GPU005, PREC408 and GPU007 rules read it (a form it lacks is unmeasured), or the table a
calibrated profile file carries (`gpucompat calibrate --grid`, gpucompat/calibrate/grid.py); the fidelity suite
re-runs a sample of the grid and fails when the accelerator and this file disagree."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "litert_gpu.json")
THRESHOLDS = ("wrong: cosine < 0.9999 or max error > 1e-3 of the largest output at fp32; "
              "cosine < 0.999 or max error > 1e-2 at fp16")
PROFILES = ("litert-mldrift", "litert-mldrift@2.3.0")  # the profiles of the release it measured (asked first)


@lru_cache(maxsize=1)
def load() -> dict:
    """The recorded calibration: {"litert", "driver", "profiles", "forms": {key: {precision: ...}}}."""
    with open(PATH) as f:
        return json.load(f)


@dataclass(frozen=True)
class Table:
    """One measured table: `record` is {"litert", "driver", "forms": {key: {precision: ...}}, ...}."""

    record: dict

    def observed(self, key: str | None) -> dict | None:
        """The recorded verdicts of one form key ({"fp32": {...}, "fp16": {...}}), None when the
        grid has no such form."""
        return None if key is None else self.record["forms"].get(key)

    def status(self, key: str | None, precision: str) -> str:
        """What the accelerator was measured to compute for the form `key` at `precision` ("fp32"
        or "fp16"): "wrong" (on either kind of adapter), "right", or "unmeasured" when the grid
        never ran that form (or its form cannot be read). Unknown is not right: callers report
        "unmeasured" as such."""
        seen = self.observed(key)
        if seen is None or precision not in seen:
            return "unmeasured"
        return "wrong" if any(_wrong_on(seen[precision])) else "right"

    def condition(self, key: str | None, precision: str) -> str:
        """Which GPUs a wrong form is wrong on, when the two kinds of adapter disagree: "on GPUs
        with fp16 shaders" or "on GPUs without fp16 shaders"; "" otherwise."""
        seen = self.observed(key)
        if seen is None or precision not in seen or "without_f16" not in seen[precision]:
            return ""
        with_f16, without = _wrong_on(seen[precision])
        return "" if with_f16 == without else f"on GPUs {'with' if with_f16 else 'without'} fp16 shaders"


def _wrong_on(verdict: dict) -> tuple[bool, bool]:
    """(wrong on an adapter with fp16 shaders, wrong on one without: False when not measured)."""
    return bool(verdict["wrong"]), bool(verdict.get("without_f16", {}).get("wrong"))


def for_profile(profile) -> Table | None:
    """The table that stands for `profile`: its own (a calibrated profile file's grid), the shipped
    one for the profiles it was measured for, None for any other (its forms are not judged)."""
    if profile.forms is not None:
        return Table(profile.forms)
    return Table(load()) if profile.name in PROFILES else None  # the name asked first: loading costs time


def observed(key: str | None) -> dict | None:
    """The shipped table's verdicts of one form key (Table.observed)."""
    return Table(load()).observed(key)


def status(key: str | None, precision: str) -> str:
    """The shipped table's verdict on the form `key` at `precision` (Table.status)."""
    return Table(load()).status(key, precision)


def write(forms: dict[str, dict], driver: str) -> None:
    """Record the grid's verdicts (atomically), for the profiles the accelerator stands for."""
    from importlib.metadata import version

    head = {"litert": version("ai-edge-litert"), "driver": driver, "profiles": list(PROFILES[:1]),  # the rest: aliases
            "thresholds": THRESHOLDS}
    tmp = PATH + ".tmp"
    with open(tmp, "w") as f:  # one line per form: about 15,000 of them
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "forms": {\n')
        f.write(",\n".join(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in forms.items()))
        f.write("\n }\n}\n")
    os.replace(tmp, PATH)
    load.cache_clear()
