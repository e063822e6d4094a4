"""litert-mldrift by LiteRT release: `--profile litert-mldrift@2.2.0`. Each release is the 2.3.0
profile (litert_mldrift.py) with what that release's wheel was measured to do differently: its
real accelerator (the shared oracle set-up, `LITERT_PIP=ai-edge-litert==2.2.0 bash setup.sh DIR`)
compiled the fidelity corpus (the 317 generated test models and the 14 MediaPipe models), and
every difference from 2.3.0 is one entry below. tests/test_fidelity_releases.py compiles the corpus
again on every release set up on the machine and fails where a profile and its wheel disagree.

A new release is one more entry here, measured the same way, and its oracle in .ci/run.
"""

from __future__ import annotations

from dataclasses import replace

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support.context import Context
from gpucompat.rules.support.profile import OpSupport, Profile
from gpucompat.rules.support.profiles.litert_mldrift import OPS, PROFILE
from gpucompat.rules.support.verdict import ACCEPT, Verdict, reject

STABLE = PROFILE.release  # what plain `litert-mldrift` describes: the newest stable release measured


def _constant_indices_gather(op, ctx: Context) -> Verdict:
    """2.2.0: a GATHER of more than one constant index is taken at partitioning and its kernel
    cannot be created, so the whole compilation fails; observed on 9 of 336 corpus models (every
    one with such a GATHER), "Shape mismatch in GpuModelBuilder::UpdateOutputTensors(output of
    gather)" then "Unable to parse bc coord for BATCH axis" on the indices. Runtime indices (an
    embedding lookup, 4 models) and a single index build, as in 2.3.0."""
    indices = op.input(1)
    if indices is not None and ctx.is_const(indices) and indices.num_elements > 1:
        return reject(f"gathers {indices.num_elements} constant indices, which LiteRT 2.2.0 cannot build a kernel for",
                      "parse", "Unable to parse bc coord for BATCH axis.")
    return ACCEPT


def _int64_arg_max(op, ctx: Context) -> Verdict:
    """2.4.0.dev20261026: ARG_MAX with an INT64 output (tf.argmax's default) that only leaves the
    graph is taken at partitioning, where 2.3.0 refuses the INT64 tensor, and then the compilation
    fails ("Failed to modify graph with delegate"); an INT64 output another op reads is refused as
    in 2.3.0, with that op ("Tensor type(INT64) is not supported.": measured, ARG_MAX -> CAST);
    with an INT32 output it is built as in 2.3.0."""
    out = op.outputs[0] if op.outputs else None
    if out is None or out.dtype != dtypes.INT64:
        return ACCEPT
    if out.consumers:
        return reject(f"tensor {out.name!r} is INT64, which the GPU does not take at runtime",
                      runtime_message=f"Tensor type(INT64) is not supported. {out.name}")
    return reject("ARG_MAX with an INT64 output is taken at partitioning, then its kernel fails to build",
                  "parse", "Failed to modify graph with delegate")


def _with(support: OpSupport, check, **changes) -> OpSupport:
    """`support` with `check` run after its own checks."""
    return replace(support, checks=(*support.checks, check), **changes)


def _release(release: str, what_differs: str, ops: dict[int, OpSupport]) -> Profile:
    return replace(PROFILE, name=f"litert-mldrift@{release}", release=release, ops={**OPS, **ops},
                   description=f"LiteRT's GPU accelerator (ML Drift) as shipped in ai-edge-litert {release}: "
                               f"{what_differs}",
                   sources=(*PROFILE.sources, f"observed with ai-edge-litert {release} (docs/profiles.md)"))


RELEASES: dict[str, Profile] = {
    "2.2.0": _release("2.2.0", "as 2.3.0, except that a GATHER of several constant indices fails to build.",
                      {B["GATHER"]: _with(OPS[B["GATHER"]], _constant_indices_gather)}),
    "2.3.0": replace(PROFILE, name="litert-mldrift@2.3.0"),
    "2.4.0.dev20261026": _release(
        "2.4.0.dev20261026", "as 2.3.0, except that ARG_MAX with an INT64 output no op reads is taken, then "
                             "fails to build.",
        {B["ARG_MAX"]: _with(OPS[B["ARG_MAX"]], _int64_arg_max, output_types=frozenset({dtypes.INT64}))}),
}
