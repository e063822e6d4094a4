"""Convolutions and matrix products (opencl/conv.cl): CONV_2D (strides, dilation, SAME/VALID,
groups), DEPTHWISE_CONV_2D (any depth multiplier), TRANSPOSE_CONV and FULLY_CONNECTED.

Filters must be constant (after load-time folding of DEQUANTIZE / DENSIFY): runtime weights are
rejected with the op named, as the OpenCL delegate rejects runtime depthwise weights with a
multiplier other than 1.
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops import activation, lowering

SAME = 0  # schema Padding enum: SAME 0, VALID 1


def padding(size_in: int, size_out: int, stride: int, kernel: int, dilation: int, mode: int) -> int:
    """Leading padding, as TFLite computes it (kernels/padding.h ComputePaddingHeightWidth):
    half of the padding needed to produce `size_out` outputs, rounded down; none for VALID."""
    if mode != SAME:
        return 0
    effective = (kernel - 1) * dilation + 1
    return max(0, ((size_out - 1) * stride + effective - size_in) // 2)


def weights_of(ex: Executor, op: Op, index: int) -> np.ndarray:
    """A constant filter input, or UnsupportedOp naming the op when it is computed at run time."""
    w = ex.value(op.input(index))
    if w is None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: runtime (non-constant) weights are not supported")
    return w


def bias_of(ex: Executor, op: Op, index: int, channels: int):
    """The bias buffer (zeros when the op has none)."""
    b = ex.value(op.input(index))
    return ex.runtime.weights(b if b is not None else np.zeros(channels, np.float32))


def _grid(ex: Executor, t) -> tuple[int, int, int]:
    s = ex.shape(t)
    return (s.w, s.h, s.b * s.slices)


def _window(ex: Executor, op: Op, src, out, kh: int, kw: int, dilated: bool = True):
    o = op.options
    dh, dw = (o.dilationHFactor or 1, o.dilationWFactor or 1) if dilated else (1, 1)
    si, so = ex.shape(src), ex.shape(out)
    k = (kh, kw, o.strideH, o.strideW)
    p = (dh, dw, padding(si.h, so.h, o.strideH, kh, dh, o.padding), padding(si.w, so.w, o.strideW, kw, dw, o.padding))
    return k, p


@lowering("CONV_2D")
def conv2d(ex: Executor, op: Op) -> Step:
    """Filter [Cout, KH, KW, Cin / groups]; groups = input channels / filter input channels."""
    src, out = op.inputs[0], op.outputs[0]
    w = weights_of(ex, op, 1)
    cout, kh, kw, cin = w.shape
    groups = ex.shape(src).c // cin
    k, p = _window(ex, op, src, out, kh, kw)
    args = (ex.tensor(src), ex.shape(src).dims, ex.runtime.weights(w), bias_of(ex, op, 2, cout),
            ex.tensor(out), ex.shape(out).dims, k, p, groups, activation(op))
    return lambda: ex.runtime.launch("conv", "conv2d", _grid(ex, out), *args)


@lowering("DEPTHWISE_CONV_2D")
def depthwise_conv2d(ex: Executor, op: Op) -> Step:
    """Filter [1, KH, KW, C * multiplier]."""
    src, out = op.inputs[0], op.outputs[0]
    w = weights_of(ex, op, 1)
    _, kh, kw, cout = w.shape
    k, p = _window(ex, op, src, out, kh, kw)
    args = (ex.tensor(src), ex.shape(src).dims, ex.runtime.weights(w), bias_of(ex, op, 2, cout),
            ex.tensor(out), ex.shape(out).dims, k, p, cout // ex.shape(src).c, activation(op))
    return lambda: ex.runtime.launch("conv", "depthwise_conv2d", _grid(ex, out), *args)


@lowering("TRANSPOSE_CONV")
def transpose_conv(ex: Executor, op: Op) -> Step:
    """Inputs (output_shape, filter [Cout, KH, KW, Cin], input, bias?). TFLite computes the padding
    with the output and input sizes swapped (kernels/transpose_conv.cc)."""
    src, out = op.inputs[2], op.outputs[0]
    w = weights_of(ex, op, 1)
    cout, kh, kw, _ = w.shape
    o = op.options
    si, so = ex.shape(src), ex.shape(out)
    k = (kh, kw, o.strideH, o.strideW)
    p = (1, 1, padding(so.h, si.h, o.strideH, kh, 1, o.padding), padding(so.w, si.w, o.strideW, kw, 1, o.padding))
    args = (ex.tensor(src), si.dims, ex.runtime.weights(w), bias_of(ex, op, 3, cout), ex.tensor(out), so.dims,
            k, p, activation(op))
    return lambda: ex.runtime.launch("conv", "transpose_conv2d", _grid(ex, out), *args)


@lowering("FULLY_CONNECTED")
def fully_connected(ex: Executor, op: Op) -> Step:
    """Weights [Cout, Cin]; the input's last dimension must be Cin, as the delegate requires
    (model_builder.cc FullyConnectedOperationParser: "Amount of input channels should match
    weights width")."""
    src, out = op.inputs[0], op.outputs[0]
    w = weights_of(ex, op, 1)
    cout, cin = w.shape
    si = ex.shape(src)
    if si.c != cin:
        raise UnsupportedOp(f"op#{op.index} FULLY_CONNECTED: amount of input channels ({si.c}) should "
                            f"match weights width ({cin})")
    args = (ex.tensor(src), si.dims, ex.runtime.weights(w), bias_of(ex, op, 2, cout), ex.tensor(out),
            ex.shape(out).dims, activation(op))
    return lambda: ex.runtime.launch("conv", "fully_connected", _grid(ex, out), *args)
