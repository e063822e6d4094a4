"""`gpucompat confirm --delegate gl`: the classic GL delegate's delegation (confirm/gl_runner.py) and the
`gl-delegate` prediction, in the terms of confirm/compare.py.

The delegate says less than LiteRT's accelerator logs: whether the delegation failed (with its
words), and the nodes it replaced in each subgraph it was offered (one Prepare per subgraph, in
order). Partitions and the rejected op types are not observed, so they are not compared.
"compiles" is the delegation: a build failure leaves the model on the CPU (the interpreter restores
its plan), which `check` reports as the delegation failing.
A model the interpreter cannot load for a custom op it has no kernel for (MediaPipe's own ops) is
reported as not judged: an app that registers the op would load it.
"""

from __future__ import annotations

from dataclasses import replace

from gpucompat.confirm.compare import Confirmation, Delegation, disagreements, predicted
from gpucompat.confirm.gl_runner import UNRESOLVED, GlJob, GlLauncher, GlReport, delegate_models
from gpucompat.confirm.logs import LogFacts
from gpucompat.confirm.runner import RuntimeReport
from gpucompat.progress import status

PROFILE = "gl-delegate"
GATE = "the delegate only supports static-sized tensors: the interpreter keeps the CPU plan"


def observed(report: GlReport, ops_per_subgraph: list[int]) -> Delegation:
    """The delegate's account in confirm's terms (partitions and rejected op types: not observed).
    A delegation refused before any Prepare with no words is the dynamic-tensor gate (the runtime
    logs its line once per process)."""
    gated = report.failed and not report.replaced and not report.error
    if report.gpu_nodes == 0 and (report.failed or report.crashed or report.timed_out):
        failure = GATE if gated else report.reason
        return Delegation(False, {}, None, False, None, gated, failure)
    gpu = {s: n for s, n in enumerate(report.replaced) if n}
    total = sum(ops_per_subgraph)
    return Delegation(True, gpu, None, total > 0 and sum(gpu.values()) == total, None, False)


def delegation(result) -> Delegation:
    """The prediction in the delegate's terms: the delegation fails when an op taken at partitioning
    cannot be built, or a subgraph holds a dynamic tensor (the interpreter refuses the delegate)."""
    ours = predicted(result)
    failed = result.delegation_failure[0] if result.delegation_failure else None
    if ours.dynamic_gate:
        return replace(ours, compiles=False, gpu_ops={}, fully_delegated=False, failure=GATE)
    if failed is None:
        return ours
    return replace(ours, compiles=False,
                   failure=f"op#{failed.index} {failed.op}: {failed.verdict.runtime_message or failed.verdict.reason}")


def runtime_report(report: GlReport, litert: str | None) -> RuntimeReport:
    """The delegate's run as confirm's runtime report."""
    facts = LogFacts(gpu_ops=dict(enumerate(report.replaced)))
    facts.adapter = "OpenGL ES through EGL"
    return RuntimeReport(report.path, not report.failed and not report.crashed and not report.timed_out,
                         report.reason, None, litert, report.crashed, report.timed_out, facts, report.log)


def confirm_gl(paths: list[str], launch: GlLauncher, per_model_timeout: float = 120.0) -> list[Confirmation]:
    """Apply the GL delegate to every model and set each beside its `gl-delegate` check (backend gl,
    quantized ops disallowed as in the delegate's build). Files are read first, so a bad file stops
    the command before the delegate starts."""
    from importlib.metadata import version

    from gpucompat import ir
    from gpucompat.placement import check_model
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    models = [ir.load(p) for p in paths]
    with status(f"delegating {len(paths)} model{'s' if len(paths) != 1 else ''} to the classic GL delegate"):
        reports = delegate_models([GlJob(p) for p in paths], launch, per_model_timeout)
    profile, litert = registry.get(PROFILE), version("ai-edge-litert")
    found = []
    for model, report in zip(models, reports):
        prediction = check_model(model, profile, Options(backend="gl"))
        real, ours = observed(report, [len(g.ops) for g in model.graphs]), delegation(prediction)
        unloadable = UNRESOLVED in (report.error or "")  # not judged: the interpreter here registers no custom op
        found.append(Confirmation(report.path, runtime_report(report, litert), prediction, real, ours,
                                  [] if unloadable else disagreements(real, ours),
                                  not_judged=report.reason if unloadable else None,
                                  runtime_name="classic GL delegate"))
    return found
