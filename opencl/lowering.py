"""From a run of ops (an op and the elementwise ops fused into it) to its step: the op's lowering
(opencl/ops/registry.py, filled by the family modules imported here), the fused ops as its kernel's
epilogue, and the delegate's quantize-and-dequantize after a fixed-point output."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpucompat.ir import Op, dtypes
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.fusion import epilogue, kernel_ops
from gpucompat.opencl.ops import conv, elementwise, indexed, lstm, movement, pool, reduce, resampler, resize  # noqa: F401
from gpucompat.opencl.ops.registry import LOWERINGS, sequence

# Ops whose lowering is one launch of a kernel storing through STORE_CELL (common.cl).
PRODUCERS = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "FULLY_CONNECTED", "SELECT_V2",
                       *pool.KERNELS, *resize.KERNELS, *elementwise.UNARY, *elementwise.BINARY})


def _quantized(op: Op) -> bool:
    """Whether an output of `op` is fixed-point (it then gets a quantize-and-dequantize step)."""
    return any(t.quantization is not None and t.dtype in (dtypes.INT8, dtypes.UINT8) for t in op.outputs)


def producer(op: Op, constant: Callable[[object], bool] = lambda t: True) -> bool:
    """Whether elementwise ops may be linked into the kernel of `op`: one launch of a kernel that
    stores through STORE_CELL, with no quantize-and-dequantize step after it. `constant(t)` says
    whether a tensor is known at load: a FULLY_CONNECTED whose weights are not (attention's
    q x k^T written as matmul(transpose_b)) runs as indexed.cl's matmul, one work-item per float,
    which has no STORE_CELL; the ops the delegate links into it then run as kernels of their
    own, storing the same values (the fused chain rounds each value to storage precision too)."""
    if op.name == "FULLY_CONNECTED" and not constant(op.input(1)):
        return False
    return op.name in PRODUCERS and not _quantized(op)


def linkable(op: Op) -> bool:
    """Whether `op` can be linked into its producer's kernel: a one- or two-input elementwise op
    (the delegate's "linkable" operations) with a float output."""
    unary = op.name in elementwise.UNARY
    return (unary or op.name in elementwise.BINARY) and len(op.present_inputs) == (1 if unary else 2) \
        and not _quantized(op)


def lower(ex: Executor, run: list[Op]) -> Step:
    """The step running `run` (an op and the elementwise ops fused into it), followed by the
    delegate's quantize-and-dequantize of each fixed-point output (add_quant_adjustments.h)."""
    head = kernel_ops(run)  # [op], or a depthwise + 1x1 pair merged into one kernel (conv.depthwise_plus_1x1)
    op, last = head[0], head[-1]
    fn = LOWERINGS.get(op.name)
    if fn is None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: the executor has no kernel for it")
    adjust = [_quant_adjustment(ex, t) for t in last.outputs if t.quantization is not None
              and t.dtype in (dtypes.INT8, dtypes.UINT8)]
    ex.pending = []
    if len(run) > len(head):
        links = zip(run[len(head) - 1:], run[len(head):])  # (the op before, the linked op)
        ex.epilogue = epilogue([elementwise.link(ex, c, prev.outputs[0]) for prev, c in links])
        ex.alias(last.outputs[0], run[-1].outputs[0])
    step = fn(ex, op) if len(head) == 1 else conv.depthwise_plus_1x1(ex, *head)
    if ex.epilogue is not None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: its kernel did not take the ops fused into it")
    return sequence([*ex.pending, step, *adjust])


def _quant_adjustment(ex: Executor, t) -> Step:
    g = ex.tensor(t)
    info = np.iinfo(dtypes.numpy_dtype(t.dtype))
    q = t.quantization
    scale, zero = float(q.scale[0]), float(q.zeroPoint[0]) if q.zeroPoint is not None else 0.0
    cells = g.shape.vec4s
    return ex.runtime.prepare("elementwise", "quantize_dequantize", (cells,), g, cells, scale, zero,
                              float(info.min), float(info.max))
