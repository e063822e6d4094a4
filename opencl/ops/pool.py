"""2-D pooling (opencl/pool.cl): AVERAGE_POOL_2D and MAX_POOL_2D, SAME / VALID, fused activations;
MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D as the delegate runs them."""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.conv import SAME, VALID, padding
from gpucompat.opencl.ops.registry import TFLITE_PADDING_SAME, activation, custom_params, lowering, options

KERNELS = {"AVERAGE_POOL_2D": "average_pool", "MAX_POOL_2D": "max_pool"}


@lowering(*KERNELS)
def pool2d(ex: Executor, op: Op) -> Step:
    """AVERAGE / MAX pooling (and the MediaPipe pooling ops) over the op's window, stride and
    SAME / VALID padding, one launch."""
    o = options(op)
    src, out = op.inputs[0], op.outputs[0]
    si, so = ex.shape(src), ex.shape(out)
    k = (o.filterHeight, o.filterWidth, o.strideH, o.strideW)
    pad = (padding(si.h, so.h, o.strideH, o.filterHeight, 1, o.padding),
           padding(si.w, so.w, o.strideW, o.filterWidth, 1, o.padding))
    args = (ex.tensor(src), si.dims, ex.tensor(out), so.dims, k, pad, activation(op))
    return ex.prepare("pool", KERNELS[op.name], (so.w, so.h, so.b * so.slices), *args)


@lowering("MaxPoolingWithArgmax2D")
def max_pool_argmax(ex: Executor, op: Op) -> Step:
    """Outputs (values, indices); custom_initial_data is a TfLitePoolParams (padding, stride_w,
    stride_h, filter_w, filter_h, activation), read as model_builder.cc Pooling2DOperationParser
    reads it."""
    pad_mode, sw, sh, fw, fh, act = custom_params(op, 6)
    mode = SAME if pad_mode == TFLITE_PADDING_SAME else VALID
    src, out, indices = op.inputs[0], op.outputs[0], op.outputs[1]
    si, so = ex.shape(src), ex.shape(out)
    pad = (padding(si.h, so.h, sh, fh, 1, mode), padding(si.w, so.w, sw, fw, 1, mode))
    return ex.runtime.prepare("pool", "max_pool_argmax", ex.cells(out), ex.tensor(src), si.dims, ex.tensor(out),
                              so.dims, ex.tensor(indices), (fh, fw, sh, sw), pad, act)


def _appended_same_padding(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """(total, appended) SAME padding the delegate computes for MaxUnpooling2D from its input
    size (common/operations.cc CalculateSamePadding, MakeSamePadding)."""
    total = max(0, kernel - (size - 1) % stride - 1)
    return total, total - total // 2


@lowering("MaxUnpooling2D")
def max_unpool(ex: Executor, op: Op) -> Step:
    """Inputs (values, indices); the delegate sets the output size itself, to input * stride minus
    the padding (common/operations.cc CalculateOutputShape); a model whose output tensor says
    otherwise is refused."""
    pad_mode, sw, sh, fw, fh, _ = custom_params(op, 6)
    src, indices, out = op.inputs[0], op.inputs[1], op.outputs[0]
    si, so = ex.shape(src), ex.shape(out)
    same = pad_mode == TFLITE_PADDING_SAME
    (th, ah), (tw, aw) = (_appended_same_padding(si.h, fh, sh), _appended_same_padding(si.w, fw, sw)) if same \
        else ((0, 0), (0, 0))
    if (so.h, so.w) != (si.h * sh - th, si.w * sw - tw):
        raise UnsupportedOp(f"op#{op.index} {op.name}: output {so.h}x{so.w}, the delegate computes "
                            f"{si.h * sh - th}x{si.w * sw - tw}")
    return ex.runtime.prepare("pool", "max_unpool", ex.cells(out), ex.tensor(src), si.dims, ex.tensor(indices),
                              ex.tensor(out), so.dims, (fh, fw, sh, sw), (ah, aw))
