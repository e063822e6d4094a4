"""Compile every calibration probe on the accelerator of the installed ai-edge-litert and set what
it did beside what the base profile (litert-mldrift, the stable release) predicts: each point's
outcome is "gpu" (the op delegated), "cpu" (refused at partitioning, the model runs on the CPU) or
"fails" (the whole compilation fails, or the process dies compiling it). A probe the CPU runtime
itself cannot load (an op version it does not register) measures nothing and is kept as
unmeasured, with why."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from gpucompat.confirm import compare
from gpucompat.confirm.runner import Launcher, RuntimeReport, compile_models
from gpucompat.rules.support.probes import Probe, corpus
from gpucompat.rules.support.profile_file import BASE

NOT_LOADABLE = ("Didn't find op for builtin opcode", "Encountered unresolved custom op")


@dataclass
class Point:
    """One probe's measurement."""

    probe: Probe
    predicted: str
    observed: str | None  # None: unmeasured (`message` says why)
    message: str | None = None
    types: tuple[str, ...] = ()  # runtime tensor types of the op that the base profile does not take

    @property
    def differs(self) -> bool:
        """Measured, and not what the base profile predicts."""
        return self.observed is not None and self.observed != self.predicted

    def record(self) -> dict:
        """JSON form (a profile file's point)."""
        return {"point": self.probe.point, "predicted": self.predicted, "observed": self.observed,
                "message": self.message, **({"types": list(self.types)} if self.types else {})}


@dataclass
class Measurement:
    """Every point, and what ran them."""

    points: list[Point]
    litert: str | None
    device: str | None
    driver: str


def measure(launch: Launcher, timeout: float = 120.0, probes: tuple[Probe, ...] | None = None) -> Measurement:
    """Compile `probes` (default: the whole corpus) on the accelerator `launch` starts and judge
    each against the base profile. Raises runner.NoDevice when no Vulkan device can run them."""
    from gpucompat import ir
    from gpucompat.placement import check_model
    from gpucompat.progress import status
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    chosen = probes if probes is not None else corpus()
    base = registry.get(BASE)
    with tempfile.TemporaryDirectory(prefix="gpucompat-calibrate-") as tmp:
        paths, models = [], []
        for i, probe in enumerate(chosen):
            data = probe.write()
            paths.append(os.path.join(tmp, f"probe_{i}.tflite"))
            with open(paths[-1], "wb") as f:
                f.write(data)
            models.append(ir.from_bytes(data, paths[-1]))
        with status(f"compiling {len(paths)} calibration probes on LiteRT's GPU accelerator"):
            reports = compile_models(paths, launch, timeout)
    points = []
    for probe, model, report in zip(chosen, models, reports):
        predicted = compare.predicted(check_model(model, base, Options(backend="webgpu")))
        points.append(_point(probe, _outcome(predicted), report, _foreign_types(model, base)))
    device = next((r.facts.adapter for r in reports if r.facts.adapter), None)
    return Measurement(points, next((r.litert for r in reports if r.litert), None), device, launch.driver)


def _outcome(d: compare.Delegation) -> str:
    if not d.compiles:
        return "fails"
    return "gpu" if sum(d.gpu_ops.values()) else "cpu"


def _point(probe: Probe, predicted: str, report: RuntimeReport, types: tuple[str, ...]) -> Point:
    """One probe's point from the runtime's report of it."""
    text = " ".join([report.error or "", *report.log])
    unloadable = next((m for m in NOT_LOADABLE if m in text), None)
    if not report.compiled and unloadable:
        return Point(probe, predicted, None, f"the CPU runtime cannot load the probe ({unloadable})")
    real = compare.observed(report, [1])
    observed = _outcome(real)
    if observed == "fails":
        message = real.failure
    elif observed == "cpu":
        message = "; ".join(r for reasons in real.rejected.values() for r in reasons if r) or None
    else:
        message = None
    return Point(probe, predicted, observed, message, types if observed != "cpu" else ())


def _foreign_types(model, base) -> tuple[str, ...]:
    """The runtime tensor types of the probe's op that the base profile takes nowhere (an op
    the runtime takes with them needs them on its entry)."""
    from gpucompat.ir import dtypes

    op = model.graphs[0].ops[0]
    allowed = base.runtime_types | base.quant_types
    return tuple(sorted({dtypes.name(t.dtype) for t in op.present_inputs + op.outputs
                         if not t.is_constant and t.dtype not in allowed}))
