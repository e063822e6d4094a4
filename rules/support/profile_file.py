"""A calibrated profile file: what `gpucompat calibrate` measured (written by
gpucompat/calibrate/document.py), and the profile `--profile PATH` makes of it.

The file (JSON) names the base profile (litert-mldrift), the ai-edge-litert release, the device
and the date, and lists every probe's point with what the base profile predicted and what the
accelerator did. The profile is the base profile with each measured difference applied:

  op       the op type taken where the base has no entry (an entry without checks), refused where
           it has one (the entry removed), or failing to build (a check that fails the build);
  version  the cap raised to a version taken above it, lowered below one refused, or the ops of
           a version failing to build;
  form     every op of the probe's form (probes.Probe.matches) refused at partitioning, failing
           to build, or taken whatever the base's checks say.

A point the runtime took with tensor types the base takes nowhere adds them to the op's entry.
What the file does not measure is the base profile's. The numerics grid's table, when calibrate
ran it (`--grid sample` or `full`), is the profile's own form table (GPU005, PREC408, GPU007): a
form the grid did not run is unmeasured, never taken from another release; without a grid the
profile's forms are not judged (as for the release profiles).
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from functools import lru_cache

from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN
from gpucompat.rules.support.probes import Probe, by_point
from gpucompat.rules.support.profile import OpSupport, Profile
from gpucompat.rules.support.verdict import ACCEPT, reject

BASE = "litert-mldrift"  # the profile every calibration is measured against
FORMAT = "gpucompat-calibrated-profile/1"
OUTCOMES = ("gpu", "cpu", "fails")  # delegated, refused at partitioning, the compilation fails


def load(path: str) -> Profile:
    """The profile of the calibrated profile file at `path` (a GpucompatError naming the file and
    the problem when it is not one)."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError as e:
        raise GpucompatError(f"{path}: cannot read the profile file ({e.strerror})") from None
    return _load(os.path.abspath(path), stamp, path)


@lru_cache(maxsize=8)
def _load(absolute: str, stamp: int, shown: str) -> Profile:
    try:
        with open(absolute) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise GpucompatError(f"{shown}: not a calibrated profile file ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise GpucompatError(f"{shown}: not a calibrated profile file (no \"format\": \"{FORMAT}\"; "
                             f"`gpucompat calibrate` writes one)")
    from gpucompat.rules.support import registry

    if doc.get("base") != BASE:
        raise GpucompatError(f"{shown}: calibrated against {doc.get('base')!r}, not {BASE}")
    base = registry.get(BASE)
    try:
        differences = [(p, _probe(p["point"], shown)) for p in doc["points"]
                       if p["observed"] is not None and p["observed"] != p["predicted"]]
    except (KeyError, TypeError) as e:
        raise GpucompatError(f"{shown}: a point of the profile file lacks {e}") from None
    odd = next((p["observed"] for p, _ in differences if p["observed"] not in OUTCOMES), None)
    if odd is not None:
        raise GpucompatError(f"{shown}: unknown outcome {odd!r} (known: {', '.join(OUTCOMES)})")
    where = f"LiteRT {doc.get('litert')} on {_device(doc)} at {doc.get('calibrated')}"
    grid = doc.get("grid")
    if grid is not None and not isinstance(grid.get("table") if isinstance(grid, dict) else None, dict):
        raise GpucompatError(f"{shown}: its \"grid\" has no \"table\" of form keys")
    table = None if grid is None else {"litert": doc.get("litert"), "driver": doc.get("driver"), "forms": grid["table"]}
    return replace(
        apply(base, differences, where), name=shown, release=doc.get("litert"), forms=table,
        title=f"LiteRT GPU accelerator, calibrated on {_device(doc)}",
        description=f"{base.title} as measured by `gpucompat calibrate` ({where}): {base.name} with "
                    f"{len(differences)} measured difference{'s' if len(differences) != 1 else ''}"
                    + (f" ({'; '.join(_said(p) for p, _ in differences)})" if differences else ""),
        sources=(*base.sources, f"calibrated with {where} (gpucompat calibrate, {shown})"))


def _said(point: dict) -> str:
    return f"{point['point']}: {point['observed']}"


def device_name(adapter: str | None) -> str:
    """The device of the runtime's adapter line, without its details ("llvmpipe (LLVM 15.0.6,
    256 bits)" of "llvmpipe (LLVM 15.0.6, 256 bits), arch=software, vendor=mesa, ...")."""
    return (adapter or "an unnamed device").split(", arch=")[0]


def _device(doc: dict) -> str:
    return device_name(doc.get("device"))


def _probe(point: str, shown: str) -> Probe:
    probe = by_point(point)
    if probe is None:
        raise GpucompatError(f"{shown}: the point {point!r} is not one this gpucompat measures "
                             f"(calibrate again with this version)")
    return probe


def apply(base: Profile, differences: list[tuple[dict, Probe]], where: str) -> Profile:
    """`base` with each measured difference (a point's record and its probe) applied."""
    ops = dict(base.ops)
    for point, probe in differences:
        code, observed = BUILTIN[probe.op], point["observed"]
        entry = ops.get(code)
        if probe.kind == "op":
            if observed == "cpu":
                entry = None
            elif observed == "fails":
                entry = OpSupport(checks=_failing(point, where))
            else:
                entry = entry or OpSupport()
        elif entry is not None and probe.kind == "version":
            cap = entry.max_version
            if observed == "gpu":
                entry = replace(entry, max_version=None if cap is None else max(cap, probe.version))
            elif observed == "cpu":
                entry = replace(entry, max_version=min(cap or probe.version, probe.version - 1))
            else:
                entry = _form_applied(entry, probe, point, where)
        elif entry is not None and probe.kind == "form":
            entry = _form_applied(entry, probe, point, where)
        if entry is not None and point.get("types"):
            extra = frozenset(getattr(dtypes, t) for t in point["types"])
            entry = replace(entry, input_types=entry.input_types | extra, output_types=entry.output_types | extra)
        if entry is None:
            ops.pop(code, None)
        else:
            ops[code] = entry
    return replace(base, ops=ops)


def _failing(point: dict, where: str) -> tuple:
    """A check failing every op it is asked about at the build, with the runtime's words."""
    message = point.get("message") or "Failed to modify graph with delegate"
    return (lambda op, ctx: reject(f"measured to fail to build ({where})", "parse", message),)


def _form_applied(entry: OpSupport, probe: Probe, point: dict, where: str) -> OpSupport:
    """`entry` with the form of `probe` (for a version probe: the op at that version) treated as
    measured."""
    matches, observed = probe.matches or (lambda op, ctx: op.version == probe.version), point["observed"]
    if observed == "gpu":
        def taken(check):
            return lambda op, ctx: ACCEPT if matches(op, ctx) else check(op, ctx)
        return replace(entry, checks=tuple(taken(c) for c in entry.checks))
    layer = "partition" if observed == "cpu" else "parse"
    message = point.get("message") or ("Failed to modify graph with delegate" if layer == "parse" else probe.point)

    def measured(op, ctx):
        if not matches(op, ctx):
            return ACCEPT
        return reject(f"{probe.point}: measured {'refused' if layer == 'partition' else 'to fail to build'} "
                      f"({where})", layer, message)
    return replace(entry, checks=(*entry.checks, measured))
