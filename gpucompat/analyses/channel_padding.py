"""Channel-padding waste: the delegate stores every GPU tensor in slices of 4 channels, so a
tensor with C = 5 costs as much memory and bandwidth as one with C = 8.

Facts: memory = B*H*W*align4(C) elements (tflite/delegates/gpu/common/task/
tensor_desc.cc GetSizeInBytesForShape); docs: [B,H,W,5] costs about what [B,H,W,8] does. OpenCL
stores tensors with C < 4 as SINGLE_TEXTURE_2D without padding when the default storage is a
texture and the device has that pixel format (common/gpu_model.cc), so waste on those tensors is an
upper bound there. Convolutions run on whole slices too: useful vs padded MACs per op."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpucompat.ir import Op, Tensor, opcodes
from gpucompat.layout import align4, bhwc, padded_counts
from gpucompat.rules.support.judging import is_fp16_constant_dequantize

# Bytes per stored element at the precision the C++ API defaults to (MAX_PRECISION -> F32,
# tflite/delegates/gpu/cl/api.cc GetPrecision); FP16 inference halves every byte figure.
STORED_BYTES = 4
_B = opcodes.BUILTIN


@dataclass(slots=True)  # one per GPU tensor: thousands of them
class TensorPadding:
    """One GPU tensor: useful vs stored elements."""

    subgraph: int
    index: int
    name: str
    shape: list[int]
    dtype: str
    channels: int
    useful_elements: int
    padded_elements: int
    single_texture_possible: bool  # C < 4 on OpenCL: may be stored unpadded

    @property
    def wasted_elements(self) -> int:
        return self.padded_elements - self.useful_elements

    @property
    def wasted_bytes(self) -> int:
        return self.wasted_elements * STORED_BYTES


@dataclass
class OpMacs:
    """One convolution-like GPU op: useful vs padded multiply-accumulates."""

    subgraph: int
    index: int
    op: str
    useful_macs: int
    padded_macs: int


@dataclass
class ChannelPadding:
    """Padding waste over the GPU part of a model."""

    tensors: list[TensorPadding] = field(default_factory=list)  # worst first
    ops: list[OpMacs] = field(default_factory=list)  # worst first

    @property
    def useful_elements(self) -> int:
        return sum(t.useful_elements for t in self.tensors)

    @property
    def padded_elements(self) -> int:
        return sum(t.padded_elements for t in self.tensors)

    @property
    def waste_ratio(self) -> float:
        """(padded - useful) / padded over every GPU tensor; 0 when nothing is on the GPU."""
        padded = self.padded_elements
        return (padded - self.useful_elements) / padded if padded else 0.0

    @property
    def useful_macs(self) -> int:
        return sum(o.useful_macs for o in self.ops)

    @property
    def padded_macs(self) -> int:
        return sum(o.padded_macs for o in self.ops)


def gpu_tensors(graph, gpu_ops: list[Op]) -> list[tuple[int, Tensor]]:
    """(index, tensor) of the runtime tensors read or written by GPU ops, once each, in
    tensor-index order. Constants (weights) and the outputs of constant-FP16 DEQUANTIZE nodes (the
    GPU reads the FP16 weights directly) are not activations and are left out."""
    touched: set[int] = set()
    for op in gpu_ops:
        touched.update(map(id, op.inputs))
        touched.update(map(id, op.outputs))
    return [(i, t) for i, t in enumerate(graph.tensors) if id(t) in touched and not t.is_constant
            and not (t.producer is not None and is_fp16_constant_dequantize(t.producer))]


def channel_padding(model, result) -> ChannelPadding:
    """Useful vs stored elements of every GPU tensor and useful vs padded MACs of every GPU
    convolution, ranked worst first."""
    out = ChannelPadding()
    cl = result.options.backend == "cl"
    for g in model.graphs:
        gi = g.index  # a search of the model's graphs: asked once, not per op
        gpu_ops = [g.ops[o.index] for o in result.ops if o.subgraph == gi and o.placement == "gpu"]
        layouts: dict[tuple[int, ...], tuple[int, int, int] | None] = {}  # shape -> (C, useful, stored)
        for i, t in gpu_tensors(g, gpu_ops):
            shape = t.shape
            if shape not in layouts:
                counts = padded_counts(shape)
                layouts[shape] = None if counts is None else (bhwc(shape)[3], *counts)
            laid = layouts[shape]
            if laid is None:
                continue
            c = laid[0]
            out.tensors.append(TensorPadding(gi, i, t.name, list(shape), t.dtype_name, *laid,
                                             single_texture_possible=cl and c < 4))
        for op in gpu_ops:
            macs = op_macs(op)
            if macs is not None:
                out.ops.append(OpMacs(gi, op.index, op.name, *macs))
    out.tensors.sort(key=lambda t: (t.useful_elements - t.padded_elements, t.subgraph, t.index))  # most wasted first
    out.ops.sort(key=lambda o: (-(o.padded_macs - o.useful_macs), o.subgraph, o.index))
    return out


def op_macs(op: Op) -> tuple[int, int] | None:
    """(useful, padded) MACs of a CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED or TRANSPOSE_CONV;
    None for other ops or shapes the delegate cannot map. Padded MACs run every slice of 4 in
    full on both the input and the output channel side."""
    code = op.builtin
    if code == _B["CONV_2D"]:
        w, y = op.input(1), op.outputs[0]
        if w is None or w.rank != 4 or bhwc(y.shape) is None:
            return None
        b, h, wd, co = bhwc(y.shape)
        _, kh, kw, ci = w.shape
        pixels = b * h * wd * kh * kw
        return pixels * co * ci, pixels * align4(co) * align4(ci)
    if code == _B["DEPTHWISE_CONV_2D"]:
        w, y = op.input(1), op.outputs[0]
        if w is None or w.rank != 4 or bhwc(y.shape) is None:
            return None
        b, h, wd, co = bhwc(y.shape)
        _, kh, kw, _ = w.shape
        pixels = b * h * wd * kh * kw
        return pixels * co, pixels * align4(co)
    if code == _B["FULLY_CONNECTED"]:
        w, y = op.input(1), op.outputs[0]
        if w is None or w.rank != 2 or not y.shape:
            return None
        units, depth = w.shape
        rows = y.num_elements // units if units else 0
        return rows * units * depth, rows * align4(units) * align4(depth)
    if code == _B["TRANSPOSE_CONV"]:
        w, x = op.input(1), op.input(2)
        if w is None or x is None or w.rank != 4 or bhwc(x.shape) is None:
            return None
        b, h, wd, ci = bhwc(x.shape)
        co, kh, kw, _ = w.shape
        pixels = b * h * wd * kh * kw
        return pixels * co * ci, pixels * align4(co) * align4(ci)
    return None
