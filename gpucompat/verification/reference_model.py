"""The model the reference interpreter runs, when it cannot be the stored one as it is.

Hybrid-quantized models. A dynamic-range (or other hybrid) model keeps its weights in int8 and its activations in float.
The reference interpreter's hybrid kernels quantize the activations on the fly and multiply in
integers (kernels/fully_connected.cc EvalHybrid, conv.cc EvalHybrid); the GPU delegate reads the
weights dequantized and computes in float (model_builder_helper.cc DequantizeConstantTensor), as
the executor does. The two differ by the activation quantization (about 1e-2 of the magnitude),
which says nothing about the GPU. `verify` therefore compares such a model with a float
reference: the same model with those weights dequantized to float32, and says so in its output.

Custom ops the delegate runs and the reference interpreter has no kernel for. MediaPipe's
Convolution2DTransposeBias is a transposed convolution with a bias: inputs (input, filter, bias),
its parameters a raw TfLiteTransposeConvParams in custom_options (padding 1 SAME / 2 VALID,
stride_w, stride_h), as the delegate reads it (model_builder.cc
TransposeConvCustomOperationParser). Its builtin twin is TRANSPOSE_CONV version 3 (inputs
output_shape, filter, input, bias), which the reference interpreter runs.
"""

from __future__ import annotations

import struct

import numpy as np

from gpucompat import ir
from gpucompat.ir import build, dtypes

_INTEGER_WEIGHTS = (dtypes.INT8, dtypes.UINT8)
TRANSPOSE_BIAS = "Convolution2DTransposeBias"  # MediaPipe's custom op with a builtin twin


def hybrid_ops(model: ir.Model, where: dict[int, list[str]]) -> list[ir.Op]:
    """Ops placed on the GPU (`where`: placements per subgraph) computing in float from quantized
    constant weights: a float output and a constant int8 / uint8 input with quantization
    parameters (DEQUANTIZE itself excepted: it is exact). A hybrid op left on the CPU runs the
    interpreter's hybrid kernel on both sides."""
    found = []
    for index, graph in enumerate(model.graphs):
        for op, place in zip(graph.ops, where.get(index, [])):
            if place != "gpu" or op.name == "DEQUANTIZE" or not any(t.dtype == dtypes.FLOAT32 for t in op.outputs):
                continue
            if any(_quantized_constant(t) for t in op.present_inputs):
                found.append(op)
    return found


def _quantized_constant(t: ir.Tensor) -> bool:
    """8-bit weights with quantization parameters, or INT4 weights with per-block scales."""
    if t.is_constant and t.is_blockwise_quantized:
        return True
    return t.is_constant and t.dtype in _INTEGER_WEIGHTS and t.quantization is not None and t.data() is not None


def with_float_weights(model: ir.Model, where: dict[int, list[str]]) -> int:
    """Store the quantized constant inputs of the model's GPU-placed hybrid ops as float32
    (per-tensor, per-channel or per-block dequantized), in place; how many ops were hybrid. Tensor indices
    are kept, so intermediates stay comparable."""
    from gpucompat.opencl.executor import blockwise_values, dequantize

    ops = hybrid_ops(model, where)
    done: set[int] = set()
    for op in ops:
        for t in op.present_inputs:
            if id(t) in done or not _quantized_constant(t):
                continue
            values = blockwise_values(t) if t.is_blockwise_quantized else dequantize(t, t.data())
            if values is None:  # blockwise weights this reading does not cover (zero points): left as they are
                continue
            t.fb.buffer = model.add_buffer(values)
            t.fb.type = dtypes.FLOAT32
            t.fb.quantization = None
            done.add(id(t))
    return len(ops)


def _has_builtin_twin(op: ir.Op) -> bool:
    """A Convolution2DTransposeBias whose options and inputs its builtin twin can take over."""
    return op.name == TRANSPOSE_BIAS and len(op.custom_options) >= 12 and len(op.inputs) == 3


def with_builtin_twins(model: ir.Model) -> int:
    """Replace every Convolution2DTransposeBias with its builtin twin TRANSPOSE_CONV, in place; how
    many were replaced. New tensors (the output shapes) go after the existing ones."""
    from ai_edge_litert import schema_py_generated as fb

    count = 0
    for graph in model.graphs:
        for op in graph.ops:
            if not _has_builtin_twin(op):
                continue
            padding, stride_w, stride_h = struct.unpack_from("<3i", op.custom_options)
            options = fb.TransposeConvOptionsT()
            options.padding = fb.Padding.SAME if padding == 1 else fb.Padding.VALID
            options.strideW, options.strideH = stride_w, stride_h
            source, weights, bias = op.inputs
            shape = build.constant(graph, f"{op.outputs[0].name}/output_shape",
                                   np.asarray(op.outputs[0].shape, np.int32))
            build.retype(op, "TRANSPOSE_CONV", options, version=3)
            op.fb.customOptions = None
            op.inputs = [shape, weights, source, bias]
            count += 1
        if count:
            graph.link()
    return count


def reference_model(model_bytes: bytes, where: dict[int, list[str]], read: ir.Model | None = None) -> \
        tuple[bytes, list[str]]:
    """The model the reference interpreter should run, given where the delegate places its ops
    (`where`, per subgraph), and what was changed (empty, and the bytes themselves, when it runs
    the stored model). `read`: the model as read from `model_bytes`, unchanged since: looked at
    first, so that the bytes are read again (into a copy to change) only when something changes
    (reading pose_detection takes 0.04-0.05 s, and fix's proof asks four times)."""
    if read is not None and not hybrid_ops(read, where) and not any(
            _has_builtin_twin(op) for graph in read.graphs for op in graph.ops):
        return model_bytes, []
    model = ir.from_bytes(model_bytes)
    changes = []
    hybrid = with_float_weights(model, where)
    if hybrid:
        changes.append(f"float, weights dequantized ({hybrid} hybrid-quantized ops)")
    twins = with_builtin_twins(model)
    if twins:
        changes.append(f"{twins} {TRANSPOSE_BIAS} run as the builtin TRANSPOSE_CONV")
    return (ir.to_bytes(model), changes) if changes else (model_bytes, [])
