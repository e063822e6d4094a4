"""substitute-l2-normalization: L2_NORMALIZATION ==> SQUARE, SUM, SQRT, MAXIMUM, DIV.

    y = L2_NORMALIZATION(x)   ==>   y = x / MAXIMUM(SQRT(SUM(SQUARE(x), axis=-1, keep_dims)), 1e-6)

No GPU delegate generation has a parser for L2_NORMALIZATION (model_builder.cc NewOperationParser; LiteRT's ML Drift
accelerator refuses it too), and every op of the chain is one it takes. The chain is the CPU
kernel's own arithmetic, step for step: the reference kernel sums x*x over the last axis, takes
the square root, clamps it from below with epsilon = 1e-6 and divides
(tflite/kernels/internal/reference/l2normalization.h L2Normalization; tflite/kernels/l2norm.cc
passes 1e-6 for float). Clamping the norm, not the squared sum, also keeps the constant
representable in fp16 (1e-12 would flush to 0 there and turn a zero vector into NaN). The kernel
refuses a fused activation (l2norm.cc Prepare: activation must be NONE), so there is none to keep.

Safety: equivalent (the SUM kernel may add in another order than the fused kernel).
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.substitute import Replacement, Substitution

EPSILON = np.float32(1e-6)  # tflite/kernels/l2norm.cc, float path


class SubstituteL2Normalization(Substitution):
    name = "substitute-l2-normalization"
    safety = "equivalent"
    summary = "L2_NORMALIZATION becomes SQUARE, SUM, SQRT, MAXIMUM(1e-6), DIV over the last axis"
    replaces = ("L2_NORMALIZATION",)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        x = op.input(0)
        if op.options is not None and op.options.fusedActivationFunction:
            return "fused activation (the CPU kernel refuses it too)"
        if not x.shape:
            return "scalar input"
        norm_shape = x.shape[:-1] + (1,)
        squares = r.emit("SQUARE", [x], x.shape, fb.SquareOptionsT())
        reducer = fb.ReducerOptionsT()
        reducer.keepDims = True
        total = r.emit("SUM", [squares, r.const("axis", [x.rank - 1])], norm_shape, reducer)
        norm = r.emit("SQRT", [total], norm_shape)
        clamped = r.emit("MAXIMUM", [norm, r.const("epsilon", np.array([EPSILON]))], norm_shape,
                         fb.MaximumMinimumOptionsT())
        r.emit("DIV", [x, clamped], op.outputs[0], fb.DivOptionsT())
        return None
