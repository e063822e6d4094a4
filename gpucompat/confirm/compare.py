"""The runtime's delegation and the `litert-mldrift` prediction, stated in the same terms, and
where they differ.

Compared: does the model compile with the GPU accelerator, GPU ops per subgraph, the partitions
each delegated subgraph is split into ("yielding N partitions", CPU and GPU), full delegation
(every op on the GPU), the op types the runtime lists as unsupported, and the dynamic-tensor
gate. When the runtime does not compile the model, only the ops, the partitions and the gate
count: the app gets no GPU at all, whatever was logged before the failure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from gpucompat.confirm.runner import Launcher, RuntimeReport, compile_models
from gpucompat.placement import ModelResult
from gpucompat.progress import status
from gpucompat.unsupported import unsupported_groups

PROFILE = "litert-mldrift"


@dataclass
class Delegation:
    """One side's account of a model."""

    compiles: bool
    gpu_ops: dict[int, int]  # subgraph -> ops on the GPU (subgraphs without any are left out)
    partitions: dict[int, int] | None  # subgraph -> partitions after delegation, for the subgraphs with GPU ops
    fully_delegated: bool
    rejected: dict[str, list[str]] | None  # op type (custom code for custom ops) -> reasons
    # (partitions, rejected: None where the runtime does not say: the classic GL delegate)
    dynamic_gate: bool
    failure: str | None = None


@dataclass
class Confirmation:
    """One model: what the runtime did, what we predicted, and every disagreement."""

    path: str
    runtime: RuntimeReport
    prediction: ModelResult
    observed: Delegation
    predicted: Delegation
    disagreements: list[str] = field(default_factory=list)
    unproven: list = field(default_factory=list)  # verification/real_gpu_forms.UnprovenOp: what compiling cannot show
    not_judged: str | None = None  # why the runtime here cannot say (a custom op it has no kernel for)
    runtime_name: str = "GPU accelerator"  # what the runtime side is: LiteRT's accelerator, the classic GL delegate


def predicted(result: ModelResult) -> Delegation:
    """The prediction in the runtime's terms. Listed as unsupported are the op types `check`
    lists at the partitioning layer (gpucompat/unsupported.py unsupported_groups: the ops
    refused by IsSupported and, with an empty reason, the FP16 helper's constant DEQUANTIZE
    nodes of a subgraph it does not take whole), with the runtime's message where known."""
    gpu: dict[int, int] = {}
    for o in result.ops:
        if o.placement == "gpu":
            gpu[o.subgraph] = gpu.get(o.subgraph, 0) + 1
    partitions = {s.index: s.partitions_after_replace for s in result.subgraphs if s.index in gpu}
    rejected: dict[str, list[str]] = {}
    for group in unsupported_groups(result):
        if group["layer"] != "partition":
            continue
        message = group["runtime_message"] if group["runtime_message"] is not None else group["reason"]
        reasons = rejected.setdefault(group["op"], [])
        if message not in reasons:
            reasons.append(message)
    return Delegation(result.failure is None, gpu, partitions, result.fully_delegated, rejected,
                      any(s.gate for s in result.subgraphs), result.failure)


def observed(report: RuntimeReport, ops_per_subgraph: list[int]) -> Delegation:
    """The runtime's account; `ops_per_subgraph` (counted in the file) decides full delegation."""
    facts = report.facts
    total = sum(ops_per_subgraph)
    if not report.compiled:
        return Delegation(False, {}, {}, False, facts.rejected, facts.dynamic_gate, _failure(report))
    gpu = {s: n for s, n in facts.gpu_ops.items() if n}
    partitions = {s: n for s, n in facts.partitions.items() if s in gpu}
    return Delegation(True, gpu, partitions, total > 0 and sum(gpu.values()) == total, facts.rejected,
                      facts.dynamic_gate)


def _failure(report: RuntimeReport) -> str:
    """Why the runtime gave the model no GPU, in one line."""
    facts = report.facts
    if facts.unresolved_custom_ops:
        return f"Encountered unresolved custom op: {', '.join(facts.unresolved_custom_ops)}"
    if facts.dynamic_gate:
        return (f"the delegate only supports static-sized tensors (tensor#{facts.dynamic_tensor} is "
                f"dynamic): Failed to modify graph with delegate")
    if facts.prepare_failure:
        return facts.prepare_failure
    if facts.kernel_failure:
        return f"the GPU kernel cannot be built ({facts.kernel_failure}): Failed to modify graph with delegate"
    return " ".join((report.error or "").split())


def disagreements(real: Delegation, ours: Delegation) -> list[str]:
    """Each way the prediction differs from the runtime, in words."""
    found = []
    if real.compiles != ours.compiles:
        found.append(f"compiles: runtime {yes_no(real.compiles)}, predicted {yes_no(ours.compiles)}")
    if real.gpu_ops != ours.gpu_ops:
        found.append(f"GPU ops per subgraph: runtime {real.gpu_ops}, predicted {ours.gpu_ops}")
    if real.partitions is not None and real.partitions != ours.partitions:
        found.append(f"partitions per subgraph: runtime {real.partitions}, predicted {ours.partitions}")
    if real.fully_delegated != ours.fully_delegated:
        found.append(f"fully delegated: runtime {yes_no(real.fully_delegated)}, "
                     f"predicted {yes_no(ours.fully_delegated)}")
    if real.rejected is not None and real.compiles and ours.compiles and set(real.rejected) != set(ours.rejected):
        only_real = sorted(set(real.rejected) - set(ours.rejected))
        only_ours = sorted(set(ours.rejected) - set(real.rejected))
        found.append("rejected op types:" + (f" only the runtime rejects {', '.join(only_real)}" if only_real else "")
                     + (";" if only_real and only_ours else "")
                     + (f" only the prediction rejects {', '.join(only_ours)}" if only_ours else ""))
    if real.dynamic_gate != ours.dynamic_gate:
        found.append(f"dynamic-tensor gate: runtime {yes_no(real.dynamic_gate)}, predicted {yes_no(ours.dynamic_gate)}")
    return found


def yes_no(flag: bool) -> str:
    """"yes" or "no"."""
    return "yes" if flag else "no"


def confirmation(report: RuntimeReport, prediction: ModelResult, ops_per_subgraph: list[int]) -> Confirmation:
    """Both sides of one model and their disagreements."""
    real, ours = observed(report, ops_per_subgraph), predicted(prediction)
    return Confirmation(report.path, report, prediction, real, ours, disagreements(real, ours))


def record(c: Confirmation) -> dict:
    """One model as JSON: both sides, the disagreements, and the runtime's own details."""
    facts = c.runtime.facts
    return {
        "path": c.path,
        "agree": None if c.not_judged else not c.disagreements,
        "disagreements": c.disagreements,
        "not_judged": c.not_judged,
        "runtime": {**_side(c.observed),
                    "error": c.runtime.error, "crashed": c.runtime.crashed, "timed_out": c.runtime.timed_out,
                    "fully_accelerated": c.runtime.fully_accelerated,
                    "delegate": facts.delegate, "ops_seen": _keyed(facts.ops_seen),
                    "cpu_delegate_ops": _keyed(facts.cpu_delegate_ops), "dynamic_tensor": facts.dynamic_tensor,
                    "unresolved_custom_ops": facts.unresolved_custom_ops, "check_failure": facts.check_failure,
                    "kernel_failure": facts.kernel_failure},
        "prediction": {**_side(c.predicted), "profile": c.prediction.profile.name,
                       "release": c.prediction.profile.release},
        "unproven": [u.record() for u in c.unproven],
    }


def _side(d: Delegation) -> dict:
    out = asdict(d)
    out["gpu_ops"] = _keyed(d.gpu_ops)
    out["partitions"] = None if d.partitions is None else _keyed(d.partitions)
    out["rejected"] = None if d.rejected is None else {k: d.rejected[k] for k in sorted(d.rejected)}
    return out


def _keyed(per_subgraph: dict[int, int]) -> dict[str, int]:
    """JSON object keys are strings: subgraph indices as text, in order."""
    return {str(k): per_subgraph[k] for k in sorted(per_subgraph)}


def confirm(paths: list[str], launch: Launcher, per_model_timeout: float = 120.0) -> list[Confirmation]:
    """Compile every model on the accelerator and set each beside its `litert-mldrift` check
    (WebGPU backend, the one the accelerator runs on) under the profile of the release that
    compiled it (`litert-mldrift@2.2.0` when the runtime is 2.2.0; the stable one for a release
    never measured). Files are read first, so a bad file stops the command before the runtime
    starts."""
    from gpucompat import ir
    from gpucompat.ir.litertlm import as_files
    from gpucompat.placement import check_model
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options
    from gpucompat.verification.real_gpu_forms import unproven_ops

    models = [ir.load(p) for p in paths]
    with as_files(paths) as files:  # the runtime opens files: bundle sections get one each
        with status(f"compiling {len(files)} model{'s' if len(files) != 1 else ''} on LiteRT's GPU accelerator"):
            reports = compile_models(files, launch, per_model_timeout)
    for r, p in zip(reports, paths):
        r.path = p
    options = Options(backend="webgpu")
    found = [confirmation(r, check_model(m, registry.for_release(r.litert), options), [len(g.ops) for g in m.graphs])
             for m, r in zip(models, reports)]
    for c, m in zip(found, models):  # compiling runs nothing: the ops known wrong, with the outputs they spoil
        c.unproven = unproven_ops(m, options=options)
    return found
