"""What a real GPU delegate computed for each op form of the numerics calibration grid
(gpucompat/calibrate/grid.py), as data, one table per delegate measured: litert_gpu.json for LiteRT's
accelerator, gl_delegate.json for the classic delegate's OpenGL ES path (confirm/gl_runner.py, on
Mesa's llvmpipe; a key no form of which ran carries "build", the delegate's words when the form
alone fails to build, or "untaken" when it was left on the CPU, which the gl-delegate profile reads
as a failed delegation or a refusal). litert_gpu.json holds, per form key (rules/support/forms.py), the
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

from gpucompat.rules.support.forms import form_of, form_with_batch

HERE = os.path.dirname(os.path.abspath(__file__))
THRESHOLDS = ("wrong: cosine < 0.9999 or max error > 1e-3 of the largest output at fp32; "
              "cosine < 0.999 or max error > 1e-2 at fp16")
ACCELERATOR, GL = "litert_gpu", "gl_delegate"  # the tables: one file each
# The profiles each table stands for (the first is written into the file; the name asked first).
PROFILES = {ACCELERATOR: ("litert-mldrift", "litert-mldrift@2.3.0"), GL: ("gl-delegate",)}
PATH = os.path.join(HERE, ACCELERATOR + ".json")
BATCH_KEYS = "form and batch"  # the GL delegate's table: keys say whether the first axis is above 1
KEYS = {ACCELERATOR: "form", GL: BATCH_KEYS}
# What measured each table, as findings name it ("{litert}": the release of the interpreter that ran it).
MEASURED_ON = {ACCELERATOR: "LiteRT {litert}'s accelerator",
               GL: "the classic GL delegate (mediapipe 0.10.21's TfLiteGpuDelegateCreate, on Mesa's llvmpipe)"}


def path(table: str = ACCELERATOR) -> str:
    """The file of the table `table` (ACCELERATOR or GL)."""
    return os.path.join(HERE, table + ".json")


@lru_cache(maxsize=2)
def load(table: str = ACCELERATOR) -> dict:
    """A recorded calibration: {"litert", "driver", "profiles", "forms": {key: {precision: ...}}}."""
    with open(path(table)) as f:
        return json.load(f)


@dataclass(frozen=True)
class Table:
    """One measured table: `record` is {"litert", "driver", "forms": {key: {precision: ...}}, ...};
    its "keys" says how ops are keyed: "form" (forms.form_of) or "form and batch"
    (forms.form_with_batch: the GL delegate's)."""

    record: dict

    def key(self, op) -> str | None:
        """`op`'s key in this table."""
        return (form_with_batch if self.record.get("keys") == BATCH_KEYS else form_of)(op)

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

    @property
    def measured_on(self) -> str:
        """What ran the grid, as a finding names it: "LiteRT 2.3.0's accelerator"."""
        return self.record.get("measured_on") or MEASURED_ON[ACCELERATOR].format(litert=self.record["litert"])

    def build_failure(self, key: str | None) -> str | None:
        """The delegate's words when the form `key` alone was measured to fail to build, else None."""
        seen = self.observed(key)
        return None if seen is None else seen.get("build")

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


# Profiles whose gl backend is the classic GL delegate's kernels: the GL table stands for them there.
GL_BACKEND = ("gpu-current",)


def for_profile(profile, backend: str | None = None) -> Table | None:
    """The table that stands for `profile` on `backend`: its own (a calibrated profile file's grid),
    the shipped one for the profiles it was measured for (the GL delegate's for gpu-current on gl),
    None for any other (its forms are not judged)."""
    if profile.forms is not None:
        return Table(profile.forms)
    for table, names in PROFILES.items():
        if profile.name in names:  # the name asked first: loading costs time
            return Table(load(table))
    return Table(load(GL)) if gl_measured(profile, backend) else None


def measured(profile, backend: str | None) -> bool:
    """Whether a numerics table stands for `profile` on `backend`: without one, what the GPU
    computes under it is unknown (reported as such, never as zero wrong)."""
    return profile.forms is not None or any(profile.name in names for names in PROFILES.values()) \
        or gl_measured(profile, backend)


def gl_measured(profile, backend: str | None) -> bool:
    """Whether the GL delegate's table stands for `profile` on `backend` (gl-delegate, and
    gpu-current on gl)."""
    return profile.forms is None and (profile.name in PROFILES[GL] or (backend == "gl" and profile.name in GL_BACKEND))


def observed(key: str | None) -> dict | None:
    """The shipped table's verdicts of one form key (Table.observed)."""
    return Table(load()).observed(key)


def status(key: str | None, precision: str) -> str:
    """The shipped table's verdict on the form `key` at `precision` (Table.status)."""
    return Table(load()).status(key, precision)


def write(forms: dict[str, dict], driver: str, table: str = ACCELERATOR) -> None:
    """Record the grid's verdicts (atomically) as the table `table`, for the profiles it stands for."""
    from importlib.metadata import version

    litert = version("ai-edge-litert")
    head = {"litert": litert, "driver": driver, "profiles": list(PROFILES[table][:1]),  # the rest: aliases
            "measured_on": MEASURED_ON[table].format(litert=litert), "keys": KEYS[table], "thresholds": THRESHOLDS}
    target = path(table)
    tmp = target + ".tmp"
    with open(tmp, "w") as f:  # one line per form: about 15,000 of them
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "forms": {\n')
        f.write(",\n".join(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in forms.items()))
        f.write("\n }\n}\n")
    os.replace(tmp, target)
    load.cache_clear()
