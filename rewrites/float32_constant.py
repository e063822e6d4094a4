"""float32-constant: an op that reads a constant through a DEQUANTIZE (fp16 or int8 weights) in a
form the accelerator computes wrongly, or was never measured on, reads it as a float32 constant.

    SELECT_V2(c, x, DEQUANTIZE(fp16 constant))  ==>  SELECT_V2(c, x, float32 constant)

TF's fp16 mode stores every float constant as FLOAT16 behind a DEQUANTIZE, which the delegate
folds into the constant its reader reads. On adapters with fp16 shaders LiteRT's accelerator then
writes WGSL that mixes f16 and f32 for some readers (SELECT, SELECT_V2, CONCATENATION, PACK): the
pipeline is invalid, the output is never written (zeros), and the partition's other outputs with
it. The same reader of a float32 constant is right (docs/fidelity.md, "Operand provenance").

Acts only where the calibration (rules/support/calibration/, or a calibrated profile file's table)
records the reader's form wrong or never measured at either precision, and the form it gets with
float32 constants right at both; other readers of the DEQUANTIZE keep it. Values: fp16 -> fp32
is exact; int8 as fold-constants dequantizes it. The constant takes 2x (fp16) or 4x (int8) its
bytes, which fix's before/after shows.

Safety: exact.
"""

from __future__ import annotations

import copy

from gpucompat.ir import Op, build
from gpucompat.rewrites.calibrated import not_measured_right
from gpucompat.rewrites.engine import Rewrite, RewriteContext
from gpucompat.rewrites.fold_constants import dequantize
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules.support import calibration
from gpucompat.rules.support.forms import provenance, stored


class Float32Constant(Rewrite):
    name = "float32-constant"
    safety = "exact"
    priority = 27
    summary = ("an op reading an fp16 / int8 constant through DEQUANTIZE in a form the accelerator computes wrongly "
               "reads it as a float32 constant")

    def candidates(self, graph, ctx):
        return [op for op in graph.ops if not op.is_custom and any(_dequantized(t) for t in op.inputs)]

    def check(self, op: Op, ctx: RewriteContext) -> Replacement | str | None:
        table = calibration.for_profile(ctx.profile, ctx.options.backend)
        if table is None or ctx.rejects(op):
            return None
        key = table.key(op)
        if all(table.status(key, p) == "right" for p in ("fp32", "fp16")):
            return None
        r = Replacement(op, [op], ctx=ctx)
        marks = r.marks()
        inputs = [build.constant(op.graph, f"{t.name}/float32", dequantize(stored(t))) if _dequantized(t) else t
                  for t in op.inputs]
        twin = build.operator(op.graph, op.name, inputs, op.outputs, copy.copy(op.options), op.version)
        why = not_measured_right(twin, "float32-constant", ctx)
        if why:
            r.forget(marks)
            return why
        r.new.append(twin)
        return r

    def rewrite(self, match: Replacement, ctx: RewriteContext) -> None:
        match.splice()


def _dequantized(t) -> bool:
    """Whether `t` is a constant read through a DEQUANTIZE (fp16 or int8 weights)."""
    return t is not None and provenance(t) not in ("runtime", "constant")
