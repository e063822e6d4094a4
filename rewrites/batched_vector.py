"""batched-vector: a FULLY_CONNECTED of a rank-1 vector runs on it as a batch of one.

    y[8] = FULLY_CONNECTED(x[16], w[8,16], b, keep_num_dims=True)
        ==>  x2 = RESHAPE(x, [1,16]);  y2 = FULLY_CONNECTED(x2, w, b);  y = RESHAPE(y2, [8])

LiteRT's GPU accelerator lays a rank-1 tensor [n] out as a batch of n values of one channel, so it
computes a FULLY_CONNECTED of a rank-1 input of more than one feature wrongly, whatever its
weights and keep_num_dims (rules/support/calibration/, GPU005: cosine -0.44 on [7] to [1,6]); the same
FULLY_CONNECTED of [1, n] is right. The vector becomes one row, the op flattens it (keep_num_dims
false) into [1, units], and a RESHAPE writes the op's own output tensor, so names, outputs and
signature defs stay. Applies only where the calibration records the op's form wrong and the new
form right (not with runtime weights and a bias: that form is wrong at every rank), under the
profiles it was measured for.

Safety: exact (the same dot products of the same values).
"""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.rewrites.calibrated import CalibratedRewrite, reshaped
from gpucompat.rewrites.substitute import Replacement


class BatchedVector(CalibratedRewrite):
    name = "batched-vector"
    safety = "exact"
    priority = 35
    summary = "a FULLY_CONNECTED of a rank-1 vector runs on it as a batch of one between RESHAPEs"
    op_types = ("FULLY_CONNECTED",)
    what = "batch-of-one"

    def plan(self, op: Op, r: Replacement) -> Op | str | None:
        """RESHAPE the vector to [1, n], the op flattening it to [1, units], RESHAPE out."""
        x, out = op.input(0), op.outputs[0]
        if x is None or x.rank != 1 or x.is_dynamic or out.is_dynamic or op.options is None:
            return None
        inputs = [r.reshape(x, (1, x.shape[0])), *op.inputs[1:]]
        new = reshaped(op, r, inputs, (1, out.shape[-1]), "row")
        new.options.keepNumDims = False
        return new
