"""Reductions and softmax (opencl/reduce.cl): MEAN, SUM, REDUCE_MAX / MIN / PROD / ANY / ALL over
any constant axes, with or without keep_dims, ARG_MAX over one, and SOFTMAX over channels."""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.movement import keepdims_tensor
from gpucompat.opencl.ops.registry import lowering, options, sequence
from gpucompat.opencl.phwc4 import BHWC

# REDUCE_ANY / REDUCE_ALL: booleans live on the device as 0.0 / 1.0, so any is the maximum and all
# the minimum.
# ARG_MAX reduces its one axis to the position of the first largest value (kernels/arg_min_max.cc).
_OPS = {"SUM": 0, "MEAN": 1, "REDUCE_MAX": 2, "REDUCE_MIN": 3, "REDUCE_PROD": 4, "REDUCE_ANY": 2, "REDUCE_ALL": 3,
        "ARG_MAX": 5}
# Which BHWC dimension each axis of a rank-r tensor is (model_builder_helper.cc ExtractAxisFromIndex).
_AXES = {1: "b", 2: "bc", 3: "bwc", 4: "bhwc"}


@lowering(*_OPS)
def reduce(ex: Executor, op: Op) -> Step:
    """MEAN, SUM, REDUCE_MAX / MIN / PROD / ANY / ALL over the constant axes, keeping or dropping
    them as the op says; ARG_MAX over its one axis, dropped. A SUM or MEAN over H and W alone runs
    as reduce_hw (the same values, a slice per work-item)."""
    src, out = op.inputs[0], op.outputs[0]
    axes_t = op.input(1)
    axes = axes_t.data() if axes_t is not None else None
    if axes is None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: the axes must be a constant")
    rank = len(src.shape)
    dims = {_AXES[rank][int(a) % rank] for a in np.ravel(axes)}
    flags = tuple(int(d in dims) for d in "bhwc")
    si = ex.shape(src)
    kept = BHWC(*(1 if f else n for f, n in zip(flags, si.dims)))
    dst, reshape = keepdims_tensor(ex, kept, ex.tensor(out))
    if flags == (0, 1, 1, 0) and op.name in ("SUM", "MEAN"):
        run = ex.runtime.prepare("reduce", "reduce_hw", (si.slices, si.b), ex.tensor(src), si.dims, dst,
                                 op.name == "MEAN")
    else:
        run = ex.runtime.prepare("reduce", "reduce", (kept.w, kept.h, kept.b * kept.c), ex.tensor(src),
                                 si.dims, dst, kept.dims, flags, _OPS[op.name])
    return sequence([run, reshape] if reshape else [run])


@lowering("SOFTMAX")
def softmax(ex: Executor, op: Op) -> Step:
    """Along the last axis (always channels in BHWC)."""
    src, out = op.inputs[0], op.outputs[0]
    s = ex.shape(src)
    beta = float(options(op).beta)
    return ex.runtime.prepare("reduce", "softmax", (s.w, s.h, s.b), ex.tensor(src), ex.tensor(out), s.dims, beta)
