"""2-D pooling (opencl/pool.cl): AVERAGE_POOL_2D and MAX_POOL_2D, SAME / VALID, fused activations."""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step
from gpucompat.opencl.ops import activation, lowering
from gpucompat.opencl.ops.conv import padding

KERNELS = {"AVERAGE_POOL_2D": "average_pool", "MAX_POOL_2D": "max_pool"}


@lowering(*KERNELS)
def pool2d(ex: Executor, op: Op) -> Step:
    o = op.options
    src, out = op.inputs[0], op.outputs[0]
    si, so = ex.shape(src), ex.shape(out)
    k = (o.filterHeight, o.filterWidth, o.strideH, o.strideW)
    pad = (padding(si.h, so.h, o.strideH, o.filterHeight, 1, o.padding),
           padding(si.w, so.w, o.strideW, o.filterWidth, 1, o.padding))
    args = (ex.tensor(src), si.dims, ex.tensor(out), so.dims, k, pad, activation(op))
    return ex.prepare("pool", KERNELS[op.name], (so.w, so.h, so.b * so.slices), *args)
