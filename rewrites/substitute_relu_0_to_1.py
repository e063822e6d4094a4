"""substitute-relu-0-to-1: RELU_0_TO_1 ==> RELU, MINIMUM(1).

    y = RELU_0_TO_1(x)   ==>   y = MINIMUM(RELU(x), 1)

onnx2tf writes RELU_0_TO_1 for an ONNX Clip(0, 1) or the clamp of a HardSigmoid; TF's converter
rarely does. LiteRT's GPU accelerator has no kernel for it ("Not supported op"), while it takes
RELU and a MINIMUM with a constant. The CPU kernel clamps each element from below at 0 and from
above at 1 (tflite/kernels/activations.cc Relu0to1Eval: std::min(std::max(0, x), 1)), which is
RELU (std::max(0, x), the same comparison, NaN included) followed by a MINIMUM with 1: the same
two comparisons in the same order.

Safety: exact (comparisons only, the CPU kernel's own).
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.substitute import Replacement, Substitution


class SubstituteRelu0To1(Substitution):
    name = "substitute-relu-0-to-1"
    safety = "exact"
    summary = "RELU_0_TO_1 becomes RELU then MINIMUM with 1"
    replaces = ("RELU_0_TO_1",)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        x = op.input(0)
        clamped = r.emit("RELU", [x], x.shape)
        r.emit("MINIMUM", [clamped, r.const("one", np.array([1.0], np.float32))], op.outputs[0],
               fb.MaximumMinimumOptionsT())
        return None
