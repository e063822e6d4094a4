"""explicit-rank-4: an op in a form the real GPU accelerator computes wrongly runs at rank 4.

    y[85,16] = ADD(x[85,16], c[1,85,16])
        ==>  x4 = RESHAPE(x, [1,1,85,16]);  y4 = ADD(x4, c[1,1,85,16]);  y = RESHAPE(y4, [85,16])
    y[16,64,1] = PAD(x[16,32,1], [[0,0],[16,16],[0,0]])
        ==>  y4 = PAD(RESHAPE(x, [1,16,32,1]), [[0,0],[0,0],[16,16],[0,0]]);  y = RESHAPE(y4, ...)

LiteRT's GPU accelerator computes binary elementwise ops of rank below 4 wrongly when an operand
is a constant of the same or a higher rank, or a runtime scalar meets a constant tensor, and PAD
of a rank-3 tensor wrongly; the same ops at rank 4 are right (rules/calibration/, PREC403). Every
operand gets leading 1s up to rank 4 (a constant gets a rank-4 copy, a scalar becomes an explicit
[1,1,1,1] tensor), PAD gets a [0,0] row per added axis, and a RESHAPE writes the op's own output
tensor, so names, outputs and signature defs stay. The rewrite applies only where the calibration
records the op's form wrong and its rank-4 form right, under the profiles it was measured for.
TensorFlow's converter folds an explicit RESHAPE written in the model source back into the
mixed-rank op, so this is a post-conversion rewrite.

Safety: exact (leading 1s change no value nor order; the op computes the same elements).
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, build
from gpucompat.rewrites.engine import Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules import calibration
from gpucompat.rules.forms import BINARY, form_of, is_constant

PADDED = ("PAD", "PADV2")


class ExplicitRank4(Rewrite):
    name = "explicit-rank-4"
    safety = "exact"
    priority = 35  # after the substitutions, whose output it may fix
    summary = "an op in a form the real accelerator computes wrongly runs at rank 4 between RESHAPEs"

    def candidates(self, graph, ctx):
        return of_type(graph, *BINARY, *PADDED)

    def check(self, op: Op, ctx: RewriteContext) -> Replacement | str | None:
        record = calibration.load()
        seen = calibration.observed(form_of(op))
        if ctx.profile.name not in record["profiles"] or seen is None or not seen["fp32"]["wrong"]:
            return None
        out = op.outputs[0]
        if out.is_dynamic or any(t.is_dynamic for t in op.present_inputs) or out.rank >= 4:
            return f"{out.name!r} is dynamic or already rank 4"
        r = Replacement(op, [op], ctx=ctx)
        marks = r.marks()
        at4 = self._plan(op, r)
        new_form = form_of(at4)
        verdict = calibration.observed(new_form)
        why = None
        if verdict is None or verdict["fp32"]["wrong"] or verdict["fp16"]["wrong"]:
            why = f"its rank-4 form [{new_form}] is not one the accelerator was measured to compute right"
        elif ctx.rejects(at4):
            why = f"the profile rejects the rank-4 {op.name}: {ctx.verdict(at4).reason}"
        if why:
            r.forget(marks)
            return why
        return r

    def _plan(self, op: Op, r: Replacement) -> Op:
        """Fill `r` with RESHAPE in, the op at rank 4, RESHAPE out; return the rank-4 op."""
        out = op.outputs[0]
        inputs = []
        for i, t in enumerate(op.inputs):
            if t is None or (op.name in PADDED and i > 0):
                inputs.append(t)
            elif is_constant(t) and t.data() is not None:
                inputs.append(r.const("rank4", _lead(t.data(), 4)))
            else:
                inputs.append(r.reshape(t, _ones(t.rank) + t.shape))
        if op.name in PADDED:
            pads = op.input(1).data()
            inputs[1] = r.const("paddings", np.vstack([np.zeros((4 - out.rank, 2), pads.dtype), pads]))
        y4 = build.tensor(op.graph, f"{out.name}/rank4", _ones(out.rank) + out.shape, out.dtype)
        at4 = build.operator(op.graph, op.name, inputs, [y4], op.options, op.version)
        r.new.append(at4)
        r.reshape(y4, out)
        return at4

    def rewrite(self, match: Replacement, ctx: RewriteContext) -> None:
        match.splice()


def _ones(rank: int) -> tuple[int, ...]:
    return (1,) * (4 - rank)


def _lead(value: np.ndarray, rank: int) -> np.ndarray:
    """`value` with leading 1s up to `rank` dimensions."""
    return value.reshape((1,) * (rank - value.ndim) + value.shape)

