"""scalar-to-channels: a runtime scalar with a constant tensor becomes an explicit [1,1,1,1] tensor
with the constant laid along the channels.

    y[8,16] = MUL(s[], c[8,16])
        ==>  s4 = RESHAPE(s, [1,1,1,1]);  y4 = MUL(s4, c[1,1,1,128]);  y = RESHAPE(y4, [8,16])

LiteRT's GPU accelerator computes a binary elementwise op wrongly when a runtime operand of one
element meets a constant tensor (rank 0 always; at rank 4 when the constant spans more than the
channels, [1,1,1,1] with [2,4,8,16]), and right when the constant is [1,1,1,N]
(rules/calibration/, PREC403). An op with a one-element operand computes each output element
from the matching constant element alone, so laying the constant out as channels changes no
value; a RESHAPE writes the op's own output tensor, so names, outputs and signature defs stay.
Applies only where the calibration records the op's form wrong and the channel form right, under
the profiles it was measured for.

Safety: exact (the same elements, the same arithmetic, in the same order).
"""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.rewrites.calibrated import CalibratedRewrite, reshaped
from gpucompat.rewrites.matching import of_type
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules.forms import BINARY, is_constant


class ScalarToChannels(CalibratedRewrite):
    name = "scalar-to-channels"
    safety = "exact"
    priority = 34  # before explicit-rank-4, which cannot fix a scalar spread over a tensor
    summary = "a runtime scalar with a constant tensor runs as [1,1,1,1] with the constant along the channels"
    what = "channel"

    def candidates(self, graph, ctx):
        return of_type(graph, *BINARY)

    def plan(self, op: Op, r: Replacement) -> Op | None:
        """RESHAPE the scalar to [1,1,1,1], the constant as [1,1,1,N], RESHAPE out."""
        scalar = [t for t in op.present_inputs if not is_constant(t) and t.num_elements == 1]
        table = [t for t in op.present_inputs if is_constant(t) and t.data() is not None and t.num_elements > 1]
        out = op.outputs[0]
        if len(scalar) != 1 or len(table) != 1 or table[0].num_elements != out.num_elements or out.is_dynamic:
            return None
        flat = (1, 1, 1, out.num_elements)
        inputs = [r.reshape(t, (1, 1, 1, 1)) if t is scalar[0] else r.const("channels", t.data().reshape(flat))
                  for t in op.inputs]
        return reshaped(op, r, inputs, flat, "channels")
