"""The float reference of a hybrid-quantized model.

A dynamic-range (or other hybrid) model keeps its weights in int8 and its activations in float.
The reference interpreter's hybrid kernels quantize the activations on the fly and multiply in
integers (kernels/fully_connected.cc EvalHybrid, conv.cc EvalHybrid); the GPU delegate reads the
weights dequantized and computes in float (model_builder_helper.cc DequantizeConstantTensor), as
the executor does. The two differ by the activation quantization (about 1e-2 of the magnitude),
which says nothing about the GPU. `verify` therefore compares such a model with a float
reference: the same model with those weights dequantized to float32, and says so in its output.
"""

from __future__ import annotations

from gpucompat import ir
from gpucompat.ir import dtypes

_INTEGER_WEIGHTS = (dtypes.INT8, dtypes.UINT8)


def hybrid_ops(model: ir.Model) -> list[ir.Op]:
    """Ops computing in float from quantized constant weights: a float output and a constant int8
    / uint8 input with quantization parameters (DEQUANTIZE itself excepted: it is exact)."""
    found = []
    for graph in model.graphs:
        for op in graph.ops:
            if op.name == "DEQUANTIZE" or not any(t.dtype == dtypes.FLOAT32 for t in op.outputs):
                continue
            if any(_quantized_constant(t) for t in op.present_inputs):
                found.append(op)
    return found


def _quantized_constant(t: ir.Tensor) -> bool:
    return t.is_constant and t.dtype in _INTEGER_WEIGHTS and t.quantization is not None and t.data() is not None


def with_float_weights(model_bytes: bytes) -> tuple[bytes, int]:
    """The model with the quantized constant inputs of its hybrid ops stored as float32 (per-tensor
    or per-channel dequantized), and how many ops were hybrid; the bytes unchanged when none is.
    Tensor indices are kept, so intermediates stay comparable."""
    from gpucompat.opencl.executor import dequantize

    model = ir.from_bytes(model_bytes)
    ops = hybrid_ops(model)
    if not ops:
        return model_bytes, 0
    done: set[int] = set()
    for op in ops:
        for t in op.present_inputs:
            if id(t) in done or not _quantized_constant(t):
                continue
            values = dequantize(t, t.data())
            t.fb.buffer = model.add_buffer(values)
            t.fb.type = dtypes.FLOAT32
            t.fb.quantization = None
            done.add(id(t))
    return ir.to_bytes(model), len(ops)
