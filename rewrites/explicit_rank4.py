"""explicit-rank-4: an op in a form the real GPU accelerator computes wrongly runs at rank 4.

    y[85,16] = ADD(x[85,16], c[1,85,16])
        ==>  x4 = RESHAPE(x, [1,1,85,16]);  y4 = ADD(x4, c[1,1,85,16]);  y = RESHAPE(y4, [85,16])
    y[16,64,1] = PAD(x[16,32,1], [[0,0],[16,16],[0,0]])
        ==>  y4 = PAD(RESHAPE(x, [1,16,32,1]), [[0,0],[0,0],[16,16],[0,0]]);  y = RESHAPE(y4, ...)

LiteRT's GPU accelerator computes binary elementwise ops (and comparisons, POW, ATAN2,
FLOOR_DIV, FLOOR_MOD, the logical ops and SELECT, whose operands broadcast alike) of rank below 4
wrongly when an operand is a constant of the same or a higher rank, or a runtime scalar meets a
constant tensor, and PAD of a rank-3 tensor with a batch above 1 wrongly; the same ops at rank 4 are right
(rules/support/calibration/, GPU005). Every operand gets leading 1s up to rank 4 (a constant gets a
rank-4 copy, as float32 when it was fp16 or int8 behind a DEQUANTIZE; a scalar becomes an explicit
[1,1,1,1] tensor), PAD gets a [0,0] row per added axis, and a RESHAPE writes the op's own output
tensor, so names, outputs and signature defs stay. The rewrite applies only where the calibration
records the op's form wrong and its rank-4 form right, under the profiles it was measured for.
TensorFlow's converter folds an explicit RESHAPE written in the model source back into the
mixed-rank op, so this is a post-conversion rewrite.

Safety: exact (leading 1s change no value nor order; the op computes the same elements).
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op
from gpucompat.rewrites.calibrated import CalibratedRewrite, rank4, reshaped
from gpucompat.rewrites.fold_constants import dequantize
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules.support.forms import BINARY, BROADCASTING, is_constant, stored

PADDED = ("PAD", "PADV2")


class ExplicitRank4(CalibratedRewrite):
    name = "explicit-rank-4"
    safety = "exact"
    priority = 35  # after the substitutions, whose output it may fix
    summary = "an op in a form the real accelerator computes wrongly runs at rank 4 between RESHAPEs"
    op_types = (*BINARY, *BROADCASTING, *PADDED)
    what = "rank-4"

    def plan(self, op: Op, r: Replacement) -> Op | str:
        """RESHAPE in (a constant gets a rank-4 copy), the op at rank 4, RESHAPE out."""
        out = op.outputs[0]
        if out.is_dynamic or any(t.is_dynamic for t in op.present_inputs) or out.rank >= 4:
            return f"{out.name!r} is dynamic or already rank 4"
        inputs = []
        for i, t in enumerate(op.inputs):
            if t is None or (op.name in PADDED and i > 0):
                inputs.append(t)
            elif is_constant(t) and stored(t).data() is not None:  # fp16 / int8 weights: their float values
                value = t.data() if t.is_constant else dequantize(stored(t))
                inputs.append(r.const("rank4", value.reshape(rank4(t.shape))))
            else:
                inputs.append(r.reshape(t, rank4(t.shape)))
        if op.name in PADDED:
            pads = op.input(1).data()
            inputs[1] = r.const("paddings", np.vstack([np.zeros((4 - out.rank, 2), pads.dtype), pads]))
        return reshaped(op, r, inputs, rank4(out.shape), "rank4")
