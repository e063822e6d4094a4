"""fold-constants: constant-only DENSIFY and DEQUANTIZE become the float constants they compute.

    DENSIFY(sparse constant)            ==>  dense constant
    DEQUANTIZE(fp16 / int8 constant)    ==>  float32 constant

only where the chosen profile rejects the op (LiteRT's GPU accelerator rejects DENSIFY and the
DEQUANTIZE it feeds; the classic delegate folds both itself: delegates/utils.cc
FP16GraphPartitionHelper, model_builder.cc DENSIFY).
The weights get bigger (fp16 x2, int8 x4, sparse -> dense): the before/after model size shows
the cost.

Values: fp16 -> fp32 is exact; int8 values are (q - zero_point) * scale, which is exact in fp32
up to the one rounding the runtime also does (tflite/kernels/dequantize.cc, per-tensor and
per-channel); a sparse tensor is densified by the reference interpreter itself (its DENSIFY
kernel, tflite/kernels/densify.cc), so the sparse formats are decoded by the runtime's own code.

Safety: exact.
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, Tensor, build, dtypes
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import B, of_type

QUANTIZED = {dtypes.INT8, dtypes.UINT8, dtypes.INT16}


class FoldConstants(Rewrite):
    name = "fold-constants"
    safety = "exact"
    priority = 20
    summary = "constant DENSIFY / DEQUANTIZE the profile rejects become float constants"

    def candidates(self, graph, ctx):
        return of_type(graph, "DENSIFY", "DEQUANTIZE")

    def check(self, op: Op, ctx: RewriteContext) -> Match | str | None:
        src = op.input(0)
        if src is None or not src.is_constant:
            return None
        if not ctx.rejects(op):
            return "the profile takes it"
        if op.builtin == B["DEQUANTIZE"] and src.dtype != dtypes.FLOAT16 and (
                src.dtype not in QUANTIZED or src.quantization is None):
            return f"cannot dequantize a {src.dtype_name} constant"
        if op.builtin == B["DEQUANTIZE"] and src.data() is None:
            return "constant data does not match its shape"
        return Match(op, [op])

    def rewrite(self, match: Match, ctx: RewriteContext) -> None:
        op = match.anchor
        out = op.outputs[0]
        value = densify(op) if op.builtin == B["DENSIFY"] else dequantize(op.input(0))
        folded = build.constant(op.graph, out.name, value.astype(dtypes.numpy_dtype(out.dtype)))
        op.graph.remove_op(op)
        op.graph.replace_uses(out, folded)


def dequantize(t: Tensor) -> np.ndarray:
    """The float32 value of a constant fp16 or quantized tensor."""
    q = t.data()
    if t.dtype == dtypes.FLOAT16:
        return q.astype(np.float32)
    params = t.quantization
    scale = np.asarray(params.scale, dtype=np.float32)
    zero = np.asarray(params.zeroPoint if params.zeroPoint is not None else [0], dtype=np.int64)
    if scale.size > 1:
        shape = [1] * q.ndim
        shape[params.quantizedDimension] = scale.size
        scale, zero = scale.reshape(shape), (zero.reshape(shape) if zero.size > 1 else zero)
    return (q.astype(np.int64) - zero).astype(np.float32) * scale


def densify(op: Op) -> np.ndarray:
    """The dense value of a DENSIFY's sparse constant, computed by the reference interpreter."""
    import warnings

    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    from gpucompat.ir.writer import to_bytes

    # Without XNNPACK: it would take DENSIFY's reader and leave DENSIFY's output unwritten.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "preserve_all_tensors is for debugging"
        it = Interpreter(model_content=to_bytes(op.graph.model), experimental_preserve_all_tensors=True,
                         experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    for d in it.get_input_details():
        it.set_tensor(d["index"], np.zeros(d["shape"], dtype=d["dtype"]))
    it.invoke()
    return it.get_tensor(op.outputs[0].index, op.graph.index).copy()
