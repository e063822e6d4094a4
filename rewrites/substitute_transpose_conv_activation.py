"""substitute-transpose-conv-activation: a TRANSPOSE_CONV with a fused activation ==> the
TRANSPOSE_CONV without it, then the activation as its own op.

    y = TRANSPOSE_CONV(shape, w, x, b, activation=RELU)      (version 4)
    ==>  y = RELU(TRANSPOSE_CONV(shape, w, x, b))            (version 3 with a bias, else 1)

The fused activation is what makes a TRANSPOSE_CONV version 4
(tflite/tools/versioning/op_version.cc: "TransposeConvOp has fused activation function from
version 4"); onnx2tf writes it for a ConvTranspose followed by a Relu, and LiteRT's GPU accelerator
caps the op at version 3 ("Max version supported: 3. Requested version 4."). The float kernel
clamps each output after adding the bias, to the activation's range (tflite/kernels/
transpose_conv.cc: ActivationFunctionWithMinMax with CalculateActivationRange), which is exactly
the RELU, RELU6 or RELU_N1_TO_1 op applied to the unclamped output. Without the activation the op
is version 3 when it has a bias, 1 otherwise (float).

Safety: exact (the same clamp, done by its own op).
"""

from __future__ import annotations

import copy

from gpucompat.ir import Op
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.substitute import Replacement, Substitution

# fused activation code (schema ActivationFunctionType) -> the op that clamps alike
CLAMPS = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}


class SubstituteTransposeConvActivation(Substitution):
    name = "substitute-transpose-conv-activation"
    safety = "exact"
    summary = "a TRANSPOSE_CONV with a fused activation (version 4) becomes version 3 and the activation's own op"
    replaces = ("TRANSPOSE_CONV",)

    def data(self, op: Op):
        return op.input(2)  # output shape, weights, then the data

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        activation = getattr(op.options, "fusedActivationFunction", 0) if op.options is not None else 0
        if not activation:
            return "no fused activation to take out"
        if activation not in CLAMPS:
            return f"fused activation {activation} has no op of its own here"
        options = copy.copy(op.options)
        options.fusedActivationFunction = 0
        bias = op.input(3) if len(op.inputs) > 3 else None
        raw = r.emit("TRANSPOSE_CONV", list(op.inputs), op.outputs[0].shape, options,
                     version=3 if bias is not None else 1)
        r.emit(CLAMPS[activation], [raw], op.outputs[0])
        return None
