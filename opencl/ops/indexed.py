"""Ops whose reads depend on runtime values or run along one axis (opencl/indexed.cl): GATHER with
runtime indices, CUMSUM, ONE_HOT, DYNAMIC_UPDATE_SLICE, BATCH_MATMUL, and FULLY_CONNECTED with
runtime weights.

Like the data-movement maps, the tables are the op's own semantics applied with numpy, at load, to
the PHWC4 float positions of its tensors; only the runtime values (indices, operands) are read by
the kernels. Each table row lists the positions one output element reads along the op's axis.
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, Tensor
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.registry import activation, lowering, options
from gpucompat.opencl.phwc4 import phwc4_positions


def positions(ex: Executor, t: Tensor) -> np.ndarray:
    """The PHWC4 float position of every element of `t`, shaped like the tensor."""
    return phwc4_positions(ex.shape(t)).reshape(t.shape)


def per_float(ex: Executor, out: Tensor, values: np.ndarray) -> np.ndarray:
    """Per-element values (shaped like `out`) laid out per float of its PHWC4 storage; -1 on the
    padding lanes."""
    flat = np.full(ex.shape(out).vec4s * 4, -1, np.int64)
    flat[positions(ex, out).ravel()] = np.broadcast_to(values, out.shape).ravel()
    return flat


def axis_table(ex: Executor, t: Tensor, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """(table, rows): the positions of `t` with `axis` moved last, one row per position of the
    other axes; `rows` numbers those rows, shaped like `t` with the axis kept at size 1."""
    moved = np.moveaxis(positions(ex, t), axis, -1)
    rows = np.arange(moved[..., 0].size).reshape(moved.shape[:-1])
    return moved.reshape(-1, t.shape[axis]), np.expand_dims(rows, axis)


def _launch(ex: Executor, op: Op, kernel: str, *args) -> Step:
    out = ex.tensor(op.outputs[0])
    n = out.shape.vec4s * 4
    tables = [ex.runtime.indices(a) if isinstance(a, np.ndarray) else a for a in args]
    return ex.runtime.prepare("indexed", kernel, (n,), *tables[:-1], out, *tables[-1], n)


def gather_runtime(ex: Executor, op: Op) -> Step:
    """GATHER whose indices (1-D, as the delegate requires) are computed at run time."""
    return _gather_rows(ex, op, op.inputs[0], op.inputs[1], options(op).axis % len(op.inputs[0].shape))


@lowering("EMBEDDING_LOOKUP")
def embedding_lookup(ex: Executor, op: Op) -> Step:
    """Inputs (ids [N], table [V, ...]): rows of the table picked by the runtime ids, a GATHER on
    axis 0 (kernels/embedding_lookup.cc)."""
    return _gather_rows(ex, op, op.inputs[1], op.inputs[0], 0)


def _gather_rows(ex: Executor, op: Op, data: Tensor, indices: Tensor, axis: int) -> Step:
    """`data` read along `axis` through the runtime `indices` (1-D) into the op's output."""
    out = op.outputs[0]
    if len(indices.shape) != 1:
        raise UnsupportedOp(f"op#{op.index} {op.name}: runtime indices must be 1-D")
    table, rows = axis_table(ex, data, axis)
    pick = positions(ex, indices).reshape([1] * axis + [-1] + [1] * (len(data.shape) - axis - 1))
    return _launch(ex, op, "gather_runtime", ex.tensor(data), ex.tensor(indices), per_float(ex, out, rows),
                   per_float(ex, out, pick), table, (data.shape[axis],))


@lowering("CUMSUM")
def cumsum(ex: Executor, op: Op) -> Step:
    """Inputs (data, axis); exclusive leaves out the element itself, reverse sums from the end
    (kernels/cumsum.cc)."""
    src, out = op.inputs[0], op.outputs[0]
    axis_t = op.input(1)
    if axis_t is None or axis_t.data() is None:
        raise UnsupportedOp(f"op#{op.index} CUMSUM: the axis must be a constant")
    axis = int(np.ravel(axis_t.data())[0]) % len(src.shape)
    size = src.shape[axis]
    table, rows = axis_table(ex, src, axis)
    at = np.arange(size).reshape([1] * axis + [-1] + [1] * (len(src.shape) - axis - 1))
    skip = int(bool(options(op).exclusive))
    first, last = (at + skip, np.full_like(at, size)) if options(op).reverse else (np.zeros_like(at), at + 1 - skip)
    return _launch(ex, op, "axis_sum", ex.tensor(src), per_float(ex, out, rows), per_float(ex, out, first),
                   per_float(ex, out, last), table, (size,))


@lowering("ONE_HOT")
def one_hot(ex: Executor, op: Op) -> Step:
    """Inputs (indices, depth, on_value, off_value); the new depth axis goes at `axis` (-1: last)."""
    indices, out = op.inputs[0], op.outputs[0]
    on, off = ex.value(op.input(2)), ex.value(op.input(3))
    if on is None or off is None:
        raise UnsupportedOp(f"op#{op.index} ONE_HOT: on and off values must be constants")
    axis = options(op).axis % len(out.shape)
    pick = np.expand_dims(positions(ex, indices), axis)
    depth = np.arange(out.shape[axis]).reshape([1] * axis + [-1] + [1] * (len(out.shape) - axis - 1))
    return _launch(ex, op, "one_hot", ex.tensor(indices), per_float(ex, out, pick), per_float(ex, out, depth),
                   (float(np.ravel(on)[0]), float(np.ravel(off)[0])))


@lowering("DYNAMIC_UPDATE_SLICE")
def dynamic_update_slice(ex: Executor, op: Op) -> Step:
    """Inputs (operand, update, start indices [rank]): the operand with the update written at the
    runtime start, clamped so that it fits (an LLM export's KV-cache write)."""
    operand, update, starts = op.inputs[0], op.inputs[1], op.inputs[2]
    out = op.outputs[0]
    rank = len(out.shape)
    if rank > 4 or tuple(operand.shape) != tuple(out.shape) or len(update.shape) != rank:
        raise UnsupportedOp(f"op#{op.index} DYNAMIC_UPDATE_SLICE: operand, update and output must share a rank of "
                            f"at most 4")
    pad = 4 - rank
    grid = np.stack(np.meshgrid(*[np.arange(d) for d in out.shape], indexing="ij"), -1).reshape(-1, rank)
    coords = np.full((ex.shape(out).vec4s * 4, 4), -1, np.int64)
    coords[positions(ex, out).ravel()] = np.concatenate([np.zeros((len(grid), pad), np.int64), grid], 1)
    start_pos = np.concatenate([np.full(pad, -1), positions(ex, starts).ravel()[:rank]])
    dims = (1,) * pad + tuple(out.shape)
    sizes = (1,) * pad + tuple(update.shape)
    return _launch(ex, op, "dynamic_update_slice", ex.tensor(operand), ex.tensor(update), ex.tensor(starts),
                   coords, start_pos, positions(ex, update).ravel(), (dims, sizes))


def matmul(ex: Executor, op: Op, a: Tensor, b_rows: np.ndarray, b: Tensor, bias: Tensor | None,
           a_rows: np.ndarray) -> Step:
    """out[batch, m, n] = dot(a_rows[batch, m, :], b_rows[batch, n, :]) (+ bias[n]), read in the
    output's row-major order; the position tables of the two operands are already broadcast to
    the same batch dimensions."""
    out = op.outputs[0]
    depth = a_rows.shape[-1]
    ta, tb = a_rows.reshape(-1, depth), b_rows.reshape(-1, depth)
    m, n = a_rows.shape[-2], b_rows.shape[-2]
    batch = ta.shape[0] // m
    if batch * m * n != out.num_elements:
        raise UnsupportedOp(f"op#{op.index} {op.name}: operands give {batch * m * n} outputs, the output has "
                            f"{out.num_elements}")
    grid = np.arange(batch * m * n).reshape(batch, m, n)
    arow = (grid // n).reshape(out.shape)
    brow = (grid // (m * n) * n + grid % n).reshape(out.shape)
    bias_pick = np.broadcast_to(positions(ex, bias).ravel() if bias is not None else np.full(n, -1), (batch, m, n))
    bias_buf = ex.tensor(bias) if bias is not None else ex.tensor(a)
    return _launch(ex, op, "matmul", ex.tensor(a), ex.tensor(b), bias_buf, per_float(ex, out, arow),
                   per_float(ex, out, brow), per_float(ex, out, bias_pick.reshape(out.shape)), ta, tb,
                   (depth, activation(op)))


@lowering("BATCH_MATMUL")
def batch_matmul(ex: Executor, op: Op) -> Step:
    """a [..., M, K] (adj_x: [..., K, M]) times b [..., K, N] (adj_y: [..., N, K]), batch
    dimensions broadcast (kernels/batch_matmul.cc)."""
    a, b, out = op.inputs[0], op.inputs[1], op.outputs[0]
    pa, pb = positions(ex, a), positions(ex, b)
    if options(op).adjX:
        pa = np.swapaxes(pa, -1, -2)
    if not options(op).adjY:
        pb = np.swapaxes(pb, -1, -2)
    lead = tuple(out.shape[:-2])
    pa = np.broadcast_to(pa, lead + pa.shape[-2:])
    pb = np.broadcast_to(pb, lead + pb.shape[-2:])
    return matmul(ex, op, a, pb, b, None, pa)


def fully_connected_runtime(ex: Executor, op: Op) -> Step:
    """FULLY_CONNECTED whose weights [N, K] are computed at run time: rows of K inputs times the
    weight rows (the delegate runs it as a convolution with runtime weights)."""
    src, w = op.inputs[0], op.inputs[1]
    depth = w.shape[-1]
    rows = positions(ex, src).reshape(-1, depth)
    pa = rows.reshape(-1, 1, depth)
    pw = np.broadcast_to(positions(ex, w), (rows.shape[0],) + tuple(w.shape))
    return matmul(ex, op, src, pw, w, op.input(2), pa)
