"""flat-constant: a runtime scalar or per-channel vector with a constant tensor runs against the
constant laid out flat: [1,1,1,C] with [1,1,N/C,C] (a scalar: [1,1,1,1] with [1,1,1,N]).

    y[8,16] = MUL(s[], c[8,16])
        ==>  s4 = RESHAPE(s, [1,1,1,1]);  y4 = MUL(s4, c[1,1,1,128]);  y = RESHAPE(y4, [8,16])
    y[4,8,16] = ADD(v[16], c[4,8,16])
        ==>  v4 = RESHAPE(v, [1,1,1,16]);  y4 = ADD(v4, c[1,1,32,16]);  y = RESHAPE(y4, [4,8,16])

LiteRT's GPU accelerator computes a binary elementwise op wrongly when a runtime operand
broadcast over the output meets a constant tensor below rank 4 (a scalar with arange(4), [16]
with [8,16]) and at rank 4 when it is spread over the batch ([1,1,1,1] with [2,4,8,16]); with the
runtime operand spread along one axis of a batch-1 constant ([1,1,1,16] with [1,1,8,16],
[1,1,1,1] with [1,1,1,4096]) it is right (rules/support/calibration/, GPU005). Output element i reads
constant element i and runtime element i mod C, in the flat layout as in the original, so no
value changes; a RESHAPE writes the op's own output tensor, so names, outputs and signature defs
stay. Explicit rank 4 alone (explicit-rank-4) would keep the spread over the batch. Applies only
where the calibration records the op's form wrong and the flat form right, under the profiles it
was measured for. TensorFlow's converter folds a RESHAPE written in the model source, so this
is a post-conversion rewrite.

Safety: exact (the same elements, the same arithmetic, in the same order).
"""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.rewrites.calibrated import CalibratedRewrite, reshaped
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules.support.forms import BINARY, is_constant


class FlatConstant(CalibratedRewrite):
    name = "flat-constant"
    safety = "exact"
    priority = 34  # before explicit-rank-4, which keeps a spread over the batch
    summary = "a runtime scalar or per-channel vector with a constant tensor runs against the constant laid out flat"
    op_types = BINARY
    what = "flat"

    def plan(self, op: Op, r: Replacement) -> Op | None:
        """RESHAPE the runtime operand to [1,1,1,C], the constant as [1,1,N/C,C], RESHAPE out."""
        out = op.outputs[0]
        x = [t for t in op.present_inputs if not is_constant(t)]
        table = [t for t in op.present_inputs if is_constant(t) and t.data() is not None]
        if len(x) != 1 or len(table) != 1 or out.is_dynamic or table[0].num_elements != out.num_elements:
            return None
        channels = x[0].shape[-1] if x[0].shape else 1
        if x[0].num_elements != channels or channels == out.num_elements or out.shape[-1] != channels and channels != 1:
            return None
        flat = (1, 1, 1, out.num_elements) if channels == 1 else (1, 1, out.num_elements // channels, channels)
        inputs = [r.reshape(t, (1, 1, 1, channels)) if t is x[0] else r.const("flat", t.data().reshape(flat))
                  for t in op.inputs]
        return reshaped(op, r, inputs, flat, "flat")
