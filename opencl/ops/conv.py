"""Convolutions and matrix products (opencl/conv.cl): CONV_2D (strides, dilation, SAME/VALID,
groups), DEPTHWISE_CONV_2D (any depth multiplier), TRANSPOSE_CONV and FULLY_CONNECTED.

Filters are packed at load when constant (after load-time folding of DEQUANTIZE / DENSIFY).
CONV_2D also takes runtime weights, packed on the device before every run as the delegate does;
other ops reject runtime weights with the op named (the OpenCL delegate rejects runtime depthwise
weights with a multiplier other than 1).
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.indexed import fully_connected_runtime
from gpucompat.opencl.ops.registry import TFLITE_PADDING_SAME, activation, custom_params, lowering, options, sequence

SAME, VALID = 0, 1  # schema Padding enum
# Blocking of the kernels in conv.cl: outputs along x per conv2d / depthwise_conv2d /
# depthwise_conv{K}x{K}_s{1,2} work-item (depthwise_pointwise: DW_X_BLOCK), pixels per pointwise_conv2d
# work-item, output channels per blocked work-item (four slices).
X_BLOCK, DW_X_BLOCK, DW_ROW_X_BLOCK, P_BLOCK, BLOCK_LANES = 8, 4, 8, 8, 16
# square depthwise windows and strides (both ways) with a kernel of their own (conv.cl DEPTHWISE_ROW_KERNEL)
DW_ROW_SIZES, DW_ROW_STRIDES = (3, 5), (1, 2)
# Work-groups of 8 along x / pixels for the blocked kernels: measured fastest on PoCL's CPU device,
# where the driver's own choice ran them up to 1.5x slower (docs/verify.md "Speed"); Intel's CPU
# runtime ran depthwise_pointwise 5-9x slower with its own (docs/benchmarks.md "Executor speed").
BLOCKED_GROUP = (8, 1, 1)
# Work-groups of 4 rows for the depthwise row kernels: Intel's CPU runtime, left to choose, ran
# MobileNetV2's depthwise layers on 8x8 and 4x4 maps 2x slower (its kernels 4-5 % less time in all);
# PoCL's time is the same either way (docs/benchmarks.md, issue #27's depthwise round). The grid is
# rounded up to whole groups; the kernel skips rows past the output.
DW_ROW_GROUP = (1, 4, 1)
# conv2d_slice only for outputs of at least this many pixels. Below, the blocked kernel's 12 idle
# lanes of 16 cost microseconds a run, and compiling conv2d_slice as well costs PoCL 0.3-0.45 s of
# a cold start: face_landmark's one such conv (3x3 to one channel) has a one-pixel output
# (docs/benchmarks.md, issue #27's cold-start round). pose_landmark_full's 256x256 head keeps it.
SLICE_MIN_PIXELS = 256


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


def bias_of(ex: Executor, op: Op, index: int, channels: int, multiple: int = 4):
    """The bias buffer, zero-padded to a multiple of `multiple` channels (whole slices by default;
    zeros when the op has none). A bias computed at run time is refused with the op named: the
    delegate counts at most the input and the weights as runtime inputs
    (tflite/tools/versioning/gpu_compatibility.cc, CONV_2D)."""
    b = ex.value(op.input(index))
    if b is None and op.input(index) is not None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: a runtime (non-constant) bias is not supported")
    padded = np.zeros(-(-channels // multiple) * multiple, np.float32)
    padded[:channels] = b if b is not None else 0.0
    return ex.runtime.weights(padded)


def pack_filter(w: np.ndarray) -> np.ndarray:
    """An OHWI filter as conv.cl reads it: [S_out, KH, KW, S_in, in lane, out lane], so that each
    (output slice, tap, input slice) is four float4 columns; padding channels are zero."""
    cout, kh, kw, cin = w.shape
    so, si = -(-cout // 4), -(-cin // 4)
    padded = np.zeros((so * 4, kh, kw, si * 4), np.float32)
    padded[:cout, :, :, :cin] = w
    return padded.reshape(so, 4, kh, kw, si, 4).transpose(0, 2, 3, 4, 5, 1)


def pack_blocked(w: np.ndarray) -> np.ndarray:
    """An OHWI filter as the blocked kernels (conv2d, pointwise_conv2d) read it: [ceil(S_out / 4),
    KH, KW, C_in padded to whole slices, 16 output lanes], zero past the real channels."""
    cout, kh, kw, cin = w.shape
    groups, si = -(-cout // BLOCK_LANES), -(-cin // 4)
    padded = np.zeros((groups * BLOCK_LANES, kh, kw, si * 4), np.float32)
    padded[:cout, :, :, :cin] = w
    return padded.reshape(groups, BLOCK_LANES, kh, kw, si * 4).transpose(0, 2, 3, 4, 1)


def dense_filter(w: np.ndarray, cin: int, groups: int) -> np.ndarray:
    """A grouped OHWI filter (each output channel reads cin / groups inputs) as an ordinary filter
    over all `cin` inputs, zero outside its group: the same sums, one kernel."""
    cout, kh, kw, per_group = w.shape
    if groups == 1:
        return w
    dense = np.zeros((cout, kh, kw, cin), np.float32)
    outs = cout // groups
    for co in range(cout):
        first = (co // outs) * per_group
        dense[co, :, :, first:first + per_group] = w[co]
    return dense


def x_blocks(ex: Executor, out, block: int, lanes: int = 4) -> tuple[int, int, int]:
    """The global size of a kernel computing `block` neighbouring pixels along x and `lanes`
    output channels per work-item."""
    s = ex.shape(out)
    return (-(-s.w // block), s.h, s.b * -(-s.c // lanes))


def _window(ex: Executor, op: Op, out, kh: int, kw: int):
    """(k, p) of the conv kernels for `op` writing `out`, and the tensor it reads: its input, or
    the input of a PAD folded into it, whose leading rows and columns then add to the padding."""
    o = options(op)
    dh, dw = o.dilationHFactor or 1, o.dilationWFactor or 1
    si, so = ex.shape(op.inputs[0]), ex.shape(out)
    src, rows, columns = ex.convolved(op)
    k = (kh, kw, o.strideH, o.strideW)
    p = (dh, dw, padding(si.h, so.h, o.strideH, kh, dh, o.padding) + rows,
         padding(si.w, so.w, o.strideW, kw, dw, o.padding) + columns)
    return k, p, src


def _conv(ex: Executor, op: Op, w: np.ndarray, bias_index: int) -> Step:
    """conv2d over an OHWI filter reading every input channel; pointwise_conv2d when the filter is
    1x1 with stride 1 and no padding (a matrix product over the pixels); conv2d_slice for other
    filters with at most 4 outputs over SLICE_MIN_PIXELS pixels or more."""
    cout, kh, kw, _ = w.shape
    out = op.outputs[0]
    k, p, src = _window(ex, op, out, kh, kw)
    so = ex.shape(out)
    if cout <= 4 and not _pointwise_window(k, p) and so.b * so.h * so.w >= SLICE_MIN_PIXELS:
        return ex.prepare("conv", "conv2d_slice", (-(-so.w // X_BLOCK), so.h, so.b), ex.tensor(src),
                          ex.shape(src).dims, ex.runtime.weights(pack_filter(w)), bias_of(ex, op, bias_index, cout),
                          ex.tensor(out), so.dims, k, p, activation(op), local=BLOCKED_GROUP)
    return _blocked_conv(ex, op, w.shape, ex.runtime.weights(pack_blocked(w)), bias_index)


def _pointwise_window(k: tuple, p: tuple) -> bool:
    """Whether a conv window is 1x1 with stride 1 and no padding (a matrix product over pixels)."""
    return k == (1, 1, 1, 1) and p[2:] == (0, 0)


def _blocked_conv(ex: Executor, op: Op, filter_shape: tuple, packed, bias_index: int) -> Step:
    """The blocked conv kernel over a filter of OHWI shape `filter_shape`, packed (pack_blocked's
    layout) in the device buffer `packed`."""
    out = op.outputs[0]
    cout, kh, kw, _ = filter_shape
    k, p, src = _window(ex, op, out, kh, kw)
    so = ex.shape(out)
    head = (ex.tensor(src), ex.shape(src).dims, packed, bias_of(ex, op, bias_index, cout, BLOCK_LANES),
            ex.tensor(out), so.dims)
    if _pointwise_window(k, p):
        return _pointwise(ex, head, so, activation(op))
    return ex.prepare("conv", "conv2d", x_blocks(ex, out, X_BLOCK, BLOCK_LANES), *head, k, p, activation(op),
                      local=BLOCKED_GROUP)


def _runtime_weights_conv(ex: Executor, op: Op) -> Step:
    """CONV_2D whose filter is computed at run time: pack_conv_weights turns the filter tensor
    (PHWC4, OHWI read as BHWC) into the blocked layout, then the ordinary conv runs, every
    inference (the delegate's ConverterToConvWeights, selectors/operation_selector.cc). The
    delegate requires the filter's input channels to equal the input's (no grouped runtime conv:
    model_builder.cc Conv2DOperationParser)."""
    weights = op.inputs[1]
    shape = tuple(int(d) for d in weights.shape)
    cin = ex.shape(op.inputs[0]).c
    if len(shape) != 4 or shape[3] != cin:
        raise UnsupportedOp(f"op#{op.index} CONV_2D: runtime weights of shape {shape} must be OHWI with {cin} "
                            f"input channels (the delegate has no grouped convolution with runtime weights)")
    cout, kh, kw, _ = shape
    lanes, cins = -(-cout // BLOCK_LANES) * BLOCK_LANES, -(-cin // 4) * 4
    packed = ex.runtime.weights(np.zeros(lanes * kh * kw * cins, np.float32))
    pack = ex.runtime.prepare("conv", "pack_conv_weights", (lanes, kh * kw, cins), ex.tensor(weights),
                              ex.shape(weights).dims, packed)
    return sequence([pack, _blocked_conv(ex, op, shape, packed, 2)])


def _pointwise(ex: Executor, head: tuple, so, act: int) -> Step:
    """pointwise_conv2d over `head` (src, its dims, packed filter, bias, dst, its dims); a single
    pixel per batch (a FULLY_CONNECTED row) runs as pointwise_row, which does not repeat it, in
    work-groups of one work-item: its few work-items each stream a long run of weights, and PoCL,
    left to choose, puts them in one or two groups, so one thread reads most of them (MobileNetV2's
    1280 x 1000 classifier 250-300 us; spread over both threads, 125-145 us)."""
    if so.h * so.w == 1:
        return ex.prepare("conv", "pointwise_row", (1, -(-so.c // BLOCK_LANES), so.b), *head, act, local=(1, 1, 1))
    size = (-(-so.h * so.w // P_BLOCK), -(-so.c // BLOCK_LANES), so.b)
    return ex.prepare("conv", "pointwise_conv2d", size, *head, act, local=BLOCKED_GROUP)


@lowering("CONV_2D")
def conv2d(ex: Executor, op: Op) -> Step:
    """Filter [Cout, KH, KW, Cin / groups]; groups = input channels / filter input channels.
    Runtime filters are packed on the device (_runtime_weights_conv)."""
    if ex.value(op.input(1)) is None:
        return _runtime_weights_conv(ex, op)
    w = weights_of(ex, op, 1)
    cin = ex.shape(op.inputs[0]).c
    return _conv(ex, op, dense_filter(w, cin, cin // w.shape[3]), 2)


@lowering("DEPTHWISE_CONV_2D")
def depthwise_conv2d(ex: Executor, op: Op) -> Step:
    """Filter [1, KH, KW, C * multiplier]; a multiplier above 1 is the grouped conv it is (C groups
    of one input and `multiplier` outputs)."""
    out = op.outputs[0]
    w = weights_of(ex, op, 1)
    _, kh, kw, cout = w.shape
    cin = ex.shape(op.inputs[0]).c
    if cout != cin:
        return _conv(ex, op, dense_filter(w.transpose(3, 1, 2, 0), cin, cin), 2)
    k, p, src = _window(ex, op, out, kh, kw)
    filter_, bias = _depthwise_parameters(ex, op, w)
    head = (ex.tensor(src), ex.shape(src).dims, filter_, bias, ex.tensor(out), ex.shape(out).dims)
    if _row_window(k, p):
        return ex.prepare("conv", f"depthwise_conv{k[0]}x{k[0]}_s{k[2]}", x_blocks(ex, out, DW_ROW_X_BLOCK), *head,
                          p[2:], activation(op), local=DW_ROW_GROUP)
    return ex.prepare("conv", "depthwise_conv2d", x_blocks(ex, out, DW_X_BLOCK), *head, k, p, activation(op))


def _depthwise_parameters(ex: Executor, op: Op, w: np.ndarray) -> tuple:
    """A multiplier-1 depthwise filter [1, KH, KW, C] as the depthwise kernels read it ([KH, KW, S]
    float4, zero past C), and its bias buffer."""
    _, kh, kw, channels = w.shape
    packed = np.zeros((kh, kw, -(-channels // 4) * 4), np.float32)
    packed[..., :channels] = w[0]
    return ex.runtime.weights(packed), bias_of(ex, op, 2, channels)


def depthwise_plus_1x1(ex: Executor, dw: Op, conv: Op) -> Step:
    """A DEPTHWISE_CONV_2D and the 1x1 CONV_2D reading its output as one depthwise_pointwise launch,
    for the pairs the delegate merges and, in fp32, those the executor merges for speed
    (opencl/fusion.py depthwise_plus_1x1 and depthwise_into_1x1 have their conditions); the
    depthwise output tensor is never stored."""
    mid, out = dw.outputs[0], conv.outputs[0]
    w = weights_of(ex, dw, 1)
    k, p, src = _window(ex, dw, mid, w.shape[1], w.shape[2])
    filter_, bias = _depthwise_parameters(ex, dw, w)
    pw = weights_of(ex, conv, 1)
    tail = (ex.runtime.weights(pack_blocked(pw)), bias_of(ex, conv, 2, pw.shape[0], BLOCK_LANES), ex.tensor(out),
            ex.shape(out).dims, activation(conv))
    if _row_window(k, p):
        return ex.prepare("conv", f"depthwise_pointwise{k[0]}x{k[0]}_s{k[2]}",
                          x_blocks(ex, out, DW_ROW_X_BLOCK, BLOCK_LANES), ex.tensor(src), ex.shape(src).dims, filter_,
                          bias, p[2:], activation(dw), *tail, local=DW_ROW_GROUP)
    return ex.prepare("conv", "depthwise_pointwise", x_blocks(ex, out, DW_X_BLOCK, BLOCK_LANES), ex.tensor(src),
                      ex.shape(src).dims, filter_, bias, k, p, activation(dw), *tail, local=BLOCKED_GROUP)


def _row_window(k: tuple[int, int, int, int], p: tuple[int, int, int, int]) -> bool:
    """Whether a depthwise window (k and p as the conv kernels take them) is one the row kernels
    compute: square, of a size in DW_ROW_SIZES, at a stride in DW_ROW_STRIDES, dilation 1."""
    return k[0] == k[1] and k[0] in DW_ROW_SIZES and k[2] == k[3] and k[2] in DW_ROW_STRIDES and p[:2] == (1, 1)


def _transpose_conv(ex: Executor, op: Op, src, bias_index: int, strides: tuple[int, int], same: bool) -> Step:
    """transpose_conv2d with the filter at input 1 ([Cout, KH, KW, Cin]). TFLite computes the
    padding with the output and input sizes swapped (kernels/transpose_conv.cc)."""
    out = op.outputs[0]
    w = weights_of(ex, op, 1)
    cout, kh, kw, _ = w.shape
    si, so = ex.shape(src), ex.shape(out)
    mode = SAME if same else VALID
    k = (kh, kw, *strides)
    p = (1, 1, padding(so.h, si.h, strides[0], kh, 1, mode), padding(so.w, si.w, strides[1], kw, 1, mode))
    args = (ex.tensor(src), si.dims, ex.runtime.weights(pack_filter(w)), bias_of(ex, op, bias_index, cout),
            ex.tensor(out), so.dims, k, p, activation(op))
    return ex.prepare("conv", "transpose_conv2d", ex.cells(out), *args)


@lowering("TRANSPOSE_CONV")
def transpose_conv(ex: Executor, op: Op) -> Step:
    """Inputs (output_shape, filter, input, bias?)."""
    o = options(op)
    return _transpose_conv(ex, op, op.inputs[2], 3, (o.strideH, o.strideW), o.padding == SAME)


@lowering("Convolution2DTransposeBias")
def transpose_conv_bias(ex: Executor, op: Op) -> Step:
    """MediaPipe's custom op: inputs (input, filter, bias); its custom_initial_data is a raw
    TfLiteTransposeConvParams (padding: 1 SAME / 2 VALID, stride_w, stride_h), as the delegate reads
    it (model_builder.cc TransposeConvCustomOperationParser)."""
    pad, stride_w, stride_h = custom_params(op, 3)
    return _transpose_conv(ex, op, op.inputs[0], 2, (stride_h, stride_w), pad == TFLITE_PADDING_SAME)


@lowering("FULLY_CONNECTED")
def fully_connected(ex: Executor, op: Op) -> Step:
    """Weights [Cout, Cin]; the input's last dimension must be Cin, as the delegate requires
    (model_builder.cc FullyConnectedOperationParser: "Amount of input channels should match
    weights width"). Runtime weights go to opencl/indexed.cl."""
    src, out = op.inputs[0], op.outputs[0]
    if ex.value(op.input(1)) is None:
        return fully_connected_runtime(ex, op)
    w = weights_of(ex, op, 1)
    cout, cin = w.shape
    si = ex.shape(src)
    if si.c != cin:
        raise UnsupportedOp(f"op#{op.index} FULLY_CONNECTED: amount of input channels ({si.c}) should "
                            f"match weights width ({cin})")
    so = ex.shape(out)
    if (si.b, si.h, si.w) == (so.b, so.h, so.w):  # row for row: a 1x1 convolution
        head = (ex.tensor(src), si.dims, ex.runtime.weights(pack_blocked(w.reshape(cout, 1, 1, cin))),
                bias_of(ex, op, 2, cout, BLOCK_LANES), ex.tensor(out), so.dims)
        return _pointwise(ex, head, so, activation(op))
    args = (ex.tensor(src), si.dims, ex.runtime.weights(pack_filter(w.reshape(cout, 1, 1, cin))),
            bias_of(ex, op, 2, cout), ex.tensor(out), so.dims, activation(op))
    return ex.prepare("conv", "fully_connected", ex.cells(out), *args)
