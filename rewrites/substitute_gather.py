"""substitute-gather: GATHER / GATHER_ND with constant indices that pick a box ==> a slice;
GATHER_ND with runtime indices of one coordinate ==> GATHER along axis 0.

    y = GATHER(x, [2, 3, 4], axis=1)         ==>   y = SLICE(x, [0, 2, 0, 0], [B, 3, W, C])
    y = GATHER(x, [0, 2, 4], axis=3)         ==>   y = STRIDED_SLICE(x, ..., strides [1, 1, 1, 2])
    y = GATHER_ND(x, [[0, 1], [0, 2]])       ==>   y = RESHAPE(SLICE(x, [0, 1, 0, 0], [1, 2, W, C]))
    y = GATHER_ND(x, ids [T, 1])             ==>   y = GATHER(x, RESHAPE(ids, [T]), axis=0)

No GPU delegate generation has a parser for GATHER_ND, and GATHER only on OpenCL/Metal with INT32
indices (gpu_compatibility.cc GATHER; model_builder.cc has no GATHER_ND parser). With constant
indices the op is a fixed selection: GATHER_ND reads, for each index tuple in row-major order,
x[tuple] (the slab of the remaining dimensions; tflite/kernels/gather_nd.cc), GATHER reads x's
slabs along `axis` for each index in order (tflite/kernels/gather.cc). When the tuples enumerate,
in row-major order, every point of a box whose sides are ascending arithmetic progressions, that is
exactly the strided slice of the box, laid out in the same order; a RESHAPE gives it the indices'
shape. Index tuples of one coordinate pick whole slabs of x's first axis, which is GATHER along
axis 0 with the indices flattened to 1-D (the form the GPU's GATHER takes): litert-torch's RoPE
tables are read this way at the runtime positions.

Safety: exact (data is copied, never computed).
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, dtypes
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.matching import B, int_values
from gpucompat.rewrites.substitute import Replacement, Substitution

Box = tuple[list[int], list[int], list[int]]  # starts, sizes, steps


class SubstituteGather(Substitution):
    name = "substitute-gather"
    safety = "exact"
    summary = ("GATHER / GATHER_ND with constant indices selecting a box become SLICE or STRIDED_SLICE; GATHER_ND "
               "with runtime one-coordinate indices becomes GATHER")
    replaces = ("GATHER", "GATHER_ND")

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        x, y = op.input(0), op.outputs[0]
        idx = int_values(op.input(1))
        if idx is None and op.builtin == B["GATHER_ND"]:
            return _slabs_at_runtime(op, r)
        if idx is None:
            return "indices not constant"
        if idx.size == 0:
            return "no indices"
        if op.builtin == B["GATHER"]:
            if op.options is not None and op.options.batchDims:
                return "batch_dims is not 0"
            axis = (op.options.axis if op.options is not None else 0) % x.rank
            rows, first = idx.reshape(-1, 1), axis
        else:
            if idx.ndim == 0 or idx.shape[-1] > x.rank:
                return "index tuples longer than the input's rank"
            rows, first = idx.reshape(-1, idx.shape[-1]), 0
        k = rows.shape[1]
        if (rows < 0).any() or (rows >= np.asarray(x.shape[first:first + k])).any():
            return "indices out of range"
        box = index_box(rows)
        if box is None:
            return "indices do not select a slice (not a row-major box of ascending progressions)"
        begin, size, step = [0] * x.rank, list(x.shape), [1] * x.rank
        begin[first:first + k], size[first:first + k], step[first:first + k] = box
        if tuple(size) == y.shape:
            r.slice(x, begin, size, step, out=y)
        else:
            r.reshape(r.slice(x, begin, size, step), y)
        return None


def _slabs_at_runtime(op: Op, r: Replacement) -> str | None:
    """GATHER_ND(x, ids [..., 1]) as GATHER(x, ids flattened, axis 0), reshaped to the output."""
    from ai_edge_litert import schema_py_generated as fb

    x, ids, y = op.input(0), op.input(1), op.outputs[0]
    if ids.dtype != dtypes.INT32 or ids.rank < 1 or ids.shape[-1] != 1 or ids.is_dynamic:
        return "runtime indices that are not INT32 tuples of one coordinate"
    count = int(np.prod(ids.shape[:-1], dtype=np.int64))
    flat = ids if ids.shape == (count,) else r.reshape(ids, [count])
    options = fb.GatherOptionsT()
    options.axis, options.batchDims = 0, 0
    shape = (count, *x.shape[1:])
    if shape == y.shape:
        r.emit("GATHER", [x, flat], y, options)
    else:
        r.reshape(r.emit("GATHER", [x, flat], shape, options), y)
    return None


def index_box(rows: np.ndarray) -> Box | None:
    """(starts, sizes, steps) when `rows` (n index tuples of length k) list, in row-major order,
    every point of a box whose sides are ascending arithmetic progressions; None otherwise."""
    sides = []
    for column in rows.T:
        values = np.unique(column)
        steps = np.diff(values)
        if steps.size and not np.all(steps == steps[0]):
            return None
        sides.append(values)
    grid = np.stack(np.meshgrid(*sides, indexing="ij"), axis=-1).reshape(-1, rows.shape[1])
    if grid.shape != rows.shape or not np.array_equal(grid, rows):
        return None
    return ([int(s[0]) for s in sides], [int(s.size) for s in sides],
            [int(s[1] - s[0]) if s.size > 1 else 1 for s in sides])
