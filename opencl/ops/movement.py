"""Data movement as kernels that compute each source coordinate from the output coordinate, as the
delegate's tasks do: opencl/window.cl (per-axis begin / stride / permutation and a border mode:
slices, reversals, padding, tiling, transposes, gathers with constant indices, splits and concatenations as
region copies) and opencl/reindex.cl (RESHAPE, DEPTH_TO_SPACE, SPACE_TO_DEPTH by element number).

Ops are described in the tensors' own ranks (`Read` per input axis) and mapped onto the delegate's
BHWC axes here; the kernels see only BHWC. Load time builds a few int4 parameters per launch,
whatever the tensor size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpucompat.ir import Op, Tensor
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.registry import lowering, options, sequence
from gpucompat.opencl.phwc4 import BHWC, bhwc
from gpucompat.opencl.runtime import GpuTensor

# The BHWC axis (0 b, 1 h, 2 w, 3 c) of each axis of a rank-n tensor (layout.bhwc: [b, c], [b, w, c]).
AXES = {0: (), 1: (0,), 2: (0, 3), 3: (0, 2, 3), 4: (0, 1, 2, 3)}
CHANNELS = 3
FILL, REFLECT, SYMMETRIC, WRAP = 0, 1, 2, 3  # border modes of window.cl
RESHAPE, DEPTH_TO_SPACE, SPACE_TO_DEPTH = 0, 1, 2  # kinds of reindex.cl


@dataclass(frozen=True)
class Read:
    """How one input axis is read: at begin + stride * (position along output axis `out`), or at
    `begin` alone when `out` is None (an axis the output drops)."""

    begin: int = 0
    stride: int = 1
    out: int | None = None


def along(reads: int) -> list[Read]:
    """The identity: input axis i read along output axis i."""
    return [Read(out=i) for i in range(reads)]


@dataclass(frozen=True)
class Ranked:
    """A device tensor with the rank of the tensor it holds (which says how its axes map to BHWC)."""

    tensor: GpuTensor
    rank: int


def ranked(ex: Executor, t: Tensor) -> Ranked:
    """The device tensor of `t`, with its rank."""
    return Ranked(ex.tensor(t), len(t.shape))


def window_step(ex: Executor, src: Ranked, dst: Ranked, reads: list[Read], *, offset: dict[int, int] | None = None,
                size: dict[int, int] | None = None, mode: int = FILL, fill: float = 0.0,
                lookup: tuple[int, np.ndarray] | None = None) -> Step:
    """A window.cl launch filling `dst` (or its region starting at `offset` with `size`, both per
    output axis) from `src` as `reads` say; `lookup` = (input axis, constant indices) reads that
    axis through the indices (GATHER)."""
    s, d = src.tensor, dst.tensor
    src_axes, dst_axes = AXES[src.rank], AXES[dst.rank]
    begin, along = [0] * 4, [[0] * 4 for _ in range(4)]  # along[output axis][input axis]: the stride
    for axis, r in zip(src_axes, reads):
        begin[axis] = r.begin
        if r.out is not None:
            along[dst_axes[r.out]][axis] = r.stride
    at, extent = [0] * 4, list(d.shape.dims)
    for i, v in (offset or {}).items():
        at[dst_axes[i]] = v
    for i, v in (size or {}).items():
        extent[dst_axes[i]] = v
    lookup_mask, lookup_from, table = [0] * 4, -1, s  # window.cl never reads the table without a lookup
    if lookup is not None:
        axis = src_axes[lookup[0]]
        lookup_mask[axis], lookup_from, table = -1, dst_axes[lookup[0]], ex.runtime.indices(lookup[1])
    b, h, w, c = extent
    if _whole_cells(s.shape, d.shape, at[CHANNELS], c, begin[CHANNELS], along, lookup_mask[CHANNELS]):
        kernel, slices = "window_cells", -(-c // 4)
    else:
        kernel, slices = "window_lanes", (at[CHANNELS] + c - 1) // 4 - at[CHANNELS] // 4 + 1
    return ex.runtime.prepare("window", kernel, (w, h, b * slices), s, s.shape.dims, d, d.shape.dims, tuple(at),
                              tuple(extent), tuple(begin), *map(tuple, along), mode, float(fill), table,
                              tuple(lookup_mask), lookup_from)


def _one_to_one(ex: Executor, op: Op, reads: list[Read], **kw) -> Step:
    """A window.cl launch from the op's first input to its output."""
    return window_step(ex, ranked(ex, op.inputs[0]), ranked(ex, op.outputs[0]), reads, **kw)


def _whole_cells(src: BHWC, dst: BHWC, at: int, size: int, begin: int, along: list[list[int]], lookup: int) -> bool:
    """Whether a window moves whole float4 cells: channels read in order (and only along the
    output's channels) from a slice boundary, inside src, into dst slices no other launch shares."""
    return (along[CHANNELS] == [0, 0, 0, 1] and all(a[CHANNELS] == 0 for a in along[:CHANNELS]) and not lookup
            and begin % 4 == 0 and 0 <= begin and begin + size <= src.c
            and at % 4 == 0 and (size % 4 == 0 or at + size == dst.c))


def reindex_step(ex: Executor, src: GpuTensor, dst: GpuTensor, kind: int = RESHAPE, block: int = 0) -> Step:
    """A reindex.cl launch: whole cells for a reshape between channel counts that are multiples
    of 4, one lane at a time otherwise."""
    grid = (dst.shape.w, dst.shape.h, dst.shape.b * dst.shape.slices)
    if kind == RESHAPE and src.shape.c % 4 == 0 and dst.shape.c % 4 == 0:
        return ex.runtime.prepare("reindex", "reshape_cells", grid, src, src.shape.dims, dst, dst.shape.dims)
    return ex.runtime.prepare("reindex", "reindex_lanes", grid, src, src.shape.dims, dst, dst.shape.dims, kind, block)


def reshape_step(ex: Executor, src: GpuTensor, dst: GpuTensor) -> Step:
    """Same elements in the same row-major order, different BHWC shape."""
    return reindex_step(ex, src, dst)


def _const_ints(op: Op, index: int) -> np.ndarray:
    t = op.input(index)
    v = t.data() if t is not None else None
    if v is None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: input {index} must be a constant")
    return np.asarray(v, np.int64)


def _expect(op: Op, out: Tensor, shape: list[int]) -> None:
    if tuple(shape) != tuple(out.shape):
        raise UnsupportedOp(f"op#{op.index} {op.name}: computed shape {tuple(shape)}, "
                            f"the output has {tuple(out.shape)}")


@lowering("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def reshape(ex: Executor, op: Op) -> Step:
    """The new shape comes from the output tensor, as in the delegate (ReshapeOperationParser)."""
    return reshape_step(ex, ex.tensor(op.inputs[0]), ex.tensor(op.outputs[0]))


@lowering("TRANSPOSE")
def transpose(ex: Executor, op: Op) -> Step:
    """Output axis j is input axis perm[j]."""
    perm = [int(p) % len(op.inputs[0].shape) for p in _const_ints(op, 1)]
    return _one_to_one(ex, op, [Read(out=perm.index(i)) for i in range(len(perm))])


@lowering("REVERSE_V2")
def reverse(ex: Executor, op: Op) -> Step:
    """The axes listed in the constant input 1 (any sign) read from their end backwards."""
    shape = op.inputs[0].shape
    flipped = {int(a) % len(shape) for a in _const_ints(op, 1)}
    return _one_to_one(ex, op, [Read(n - 1, -1, i) if i in flipped else Read(out=i) for i, n in enumerate(shape)])


@lowering("SLICE")
def slice_(ex: Executor, op: Op) -> Step:
    """begin and size constant; size -1 means "to the end"."""
    shape = op.inputs[0].shape
    begin, size = _const_ints(op, 1), _const_ints(op, 2)
    _expect(op, op.outputs[0], [n - b if s < 0 else s for n, b, s in zip(shape, begin, size)])
    return _one_to_one(ex, op, [Read(int(b), 1, i) for i, b in enumerate(begin)])


@lowering("STRIDED_SLICE")
def strided_slice(ex: Executor, op: Op) -> Step:
    """begin / end / strides constant (any sign), with begin, end and shrink-axis masks: TFLite's
    strided_slice semantics with offset=false, which Python's slice.indices shares (clamping,
    negative positions). Ellipsis and new-axis masks are not supported, as in the delegate."""
    o = options(op)
    if o.ellipsisMask or o.newAxisMask or getattr(o, "offset", False):
        raise UnsupportedOp(f"op#{op.index} STRIDED_SLICE: ellipsis / new-axis masks and offset are not supported")
    begin, end, strides = (_const_ints(op, i) for i in (1, 2, 3))
    reads, shape = [], []
    for i, n in enumerate(op.inputs[0].shape):
        if i >= len(begin):
            reads.append(Read(out=len(shape)))
            shape.append(n)
        elif o.shrinkAxisMask >> i & 1:
            reads.append(Read(int(begin[i]) % n, 0))
        else:
            b = None if o.beginMask >> i & 1 else int(begin[i])
            e = None if o.endMask >> i & 1 else int(end[i])
            start, stop, step = slice(b, e, int(strides[i])).indices(n)
            reads.append(Read(start, step, len(shape)))
            shape.append(len(range(start, stop, step)))
    _expect(op, op.outputs[0], shape)
    return _one_to_one(ex, op, reads)


def _padded(ex: Executor, op: Op, mode: int, fill: float = 0.0) -> Step:
    pads = _const_ints(op, 1).reshape(-1, 2)
    _expect(op, op.outputs[0], [n + int(p.sum()) for n, p in zip(op.inputs[0].shape, pads)])
    reads = [Read(-int(before), 1, i) for i, before in enumerate(pads[:, 0])]
    return _one_to_one(ex, op, reads, mode=mode, fill=fill)


@lowering("PAD", "PADV2")
def pad(ex: Executor, op: Op) -> Step:
    """Constant padding (PADV2's value, else 0): tasks/padding.cc."""
    fill = ex.value(op.input(2)) if len(op.inputs) > 2 and op.input(2) is not None else None
    return _padded(ex, op, FILL, float(np.ravel(fill)[0]) if fill is not None else 0.0)


@lowering("MIRROR_PAD")
def mirror_pad(ex: Executor, op: Op) -> Step:
    """mode 0 REFLECT (edge not repeated; the delegate's only mode), 1 SYMMETRIC (edge repeated,
    as the reference interpreter does)."""
    return _padded(ex, op, REFLECT if options(op).mode == 0 else SYMMETRIC)


@lowering("TILE")
def tile(ex: Executor, op: Op) -> Step:
    """Output position p reads p mod the input size on every axis (tasks/tile.cc)."""
    _expect(op, op.outputs[0], [n * int(m) for n, m in zip(op.inputs[0].shape, _const_ints(op, 1))])
    return _one_to_one(ex, op, along(len(op.inputs[0].shape)), mode=WRAP)


def _block_op(ex: Executor, op: Op, kind: int, shape: list[int]) -> Step:
    _expect(op, op.outputs[0], shape)
    return reindex_step(ex, ex.tensor(op.inputs[0]), ex.tensor(op.outputs[0]), kind, options(op).blockSize)


@lowering("DEPTH_TO_SPACE")
def depth_to_space(ex: Executor, op: Op) -> Step:
    """out[b, h*k + i, w*k + j, c] = in[b, h, w, (i*k + j) * C_out + c]."""
    k = options(op).blockSize
    b, h, w, c = op.inputs[0].shape
    return _block_op(ex, op, DEPTH_TO_SPACE, [b, h * k, w * k, c // (k * k)])


@lowering("SPACE_TO_DEPTH")
def space_to_depth(ex: Executor, op: Op) -> Step:
    """The inverse of DEPTH_TO_SPACE."""
    k = options(op).blockSize
    b, h, w, c = op.inputs[0].shape
    return _block_op(ex, op, SPACE_TO_DEPTH, [b, h // k, w // k, c * k * k])


@lowering("GATHER")
def gather(ex: Executor, op: Op) -> Step:
    """Constant indices: the gathered axis read through them (tasks/gather.cc reads its indices from
    a tensor as well). Indices of another rank than 1 gather into the input's rank first and are
    then reshaped. Runtime indices (a second GPU input in the delegate) are read by
    opencl/indexed.cl."""
    if ex.value(op.input(1)) is None:
        from gpucompat.opencl.ops.indexed import gather_runtime

        return gather_runtime(ex, op)
    src, out = op.inputs[0], op.outputs[0]
    axis = options(op).axis % len(src.shape)
    indices = _const_ints(op, 1).ravel()
    shape = list(src.shape)
    shape[axis] = indices.size
    _expect(op, out, [*src.shape[:axis], *_const_ints(op, 1).shape, *src.shape[axis + 1:]])
    if ex.shape(out) == bhwc(shape):
        return window_step(ex, ranked(ex, src), ranked(ex, out), along(len(shape)), lookup=(axis, indices))
    gathered = Ranked(ex.runtime.empty(bhwc(shape)), len(shape))
    return sequence([window_step(ex, ranked(ex, src), gathered, along(len(shape)), lookup=(axis, indices)),
                     reshape_step(ex, gathered.tensor, ex.tensor(out))])


def _split(ex: Executor, op: Op, data: int, axis: int) -> Step:
    """Each output the slice of the input after the ones before it along `axis` (tasks/split.cc)."""
    src, steps, start = op.inputs[data], [], 0
    for out in op.outputs:
        reads = along(len(src.shape))
        reads[axis] = Read(start, 1, axis)
        steps.append(window_step(ex, ranked(ex, src), ranked(ex, out), reads))
        start += out.shape[axis]
    if start != src.shape[axis]:
        raise UnsupportedOp(f"op#{op.index} {op.name}: the outputs take {start} of {src.shape[axis]} along axis {axis}")
    return sequence(steps)


@lowering("SPLIT")
def split(ex: Executor, op: Op) -> Step:
    """Inputs (axis, data)."""
    return _split(ex, op, 1, int(_const_ints(op, 0)) % len(op.inputs[1].shape))


@lowering("SPLIT_V")
def split_v(ex: Executor, op: Op) -> Step:
    """Inputs (data, size_splits, axis); the sizes are the outputs' own."""
    return _split(ex, op, 0, int(_const_ints(op, 2)) % len(op.inputs[0].shape))


def _skipping(rank: int, axis: int, begin: int = 0) -> list[Read]:
    """Reads of a rank-`rank` tensor whose `axis` is fixed at `begin` and absent from the other
    side (which has one axis fewer)."""
    return [Read(begin, 0) if i == axis else Read(out=i - (i > axis)) for i in range(rank)]


@lowering("UNPACK")
def unpack(ex: Executor, op: Op) -> Step:
    """Output k is the input at position k along the axis, the axis dropped."""
    rank = len(op.inputs[0].shape)
    axis = options(op).axis % rank
    src = ranked(ex, op.inputs[0])
    return sequence([window_step(ex, src, ranked(ex, out), _skipping(rank, axis, k))
                     for k, out in enumerate(op.outputs)])


@lowering("CONCATENATION")
def concatenation(ex: Executor, op: Op) -> Step:
    """Each input copied into its region of the output (tasks/concat_xy.cc, concat_z.cc)."""
    if options(op).fusedActivationFunction:
        raise UnsupportedOp(f"op#{op.index} CONCATENATION: fused activations are not supported")
    out = op.outputs[0]
    axis, dst = options(op).axis % len(out.shape), ranked(ex, out)
    steps, start = [], 0
    for t in op.inputs:
        steps.append(window_step(ex, ranked(ex, t), dst, along(len(t.shape)), offset={axis: start},
                                 size={axis: t.shape[axis]}))
        start += t.shape[axis]
    return sequence(steps)


@lowering("PACK")
def pack(ex: Executor, op: Op) -> Step:
    """Input k copied to position k along the new axis (the delegate parses PACK as reshapes and a
    concatenation: model_builder.cc PackOperationParser)."""
    out = op.outputs[0]
    axis = options(op).axis % len(out.shape)
    reads = [Read(out=i + (i >= axis)) for i in range(len(out.shape) - 1)]
    dst = ranked(ex, out)
    return sequence([window_step(ex, ranked(ex, t), dst, reads, offset={axis: k}, size={axis: 1})
                     for k, t in enumerate(op.inputs)])


def keepdims_tensor(ex: Executor, shape: BHWC, dst: GpuTensor) -> tuple[GpuTensor, Step | None]:
    """A tensor of BHWC `shape` to compute into, and the reshape step into `dst` when `dst` has a
    different BHWC shape (a reduction without keep_dims changes the rank)."""
    if shape == dst.shape:
        return dst, None
    tmp = ex.runtime.empty(shape)
    return tmp, reshape_step(ex, tmp, dst)
