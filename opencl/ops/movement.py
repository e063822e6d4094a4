"""Data movement (opencl/copy.cl) as index maps built at load time: the op's own semantics are
applied with numpy to an array of element numbers, and the result, translated to PHWC4 float
positions, drives one `gather` (or one `scatter` per input) kernel. The maps are the exact
permutation of each op, including the 4-channel padding of both sides.
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.layout import BHWC, phwc4_positions
from gpucompat.opencl.ops import lowering, options, sequence
from gpucompat.opencl.runtime import GpuTensor


def numbered(shape: tuple[int, ...]) -> np.ndarray:
    """Element numbers 0..n-1 in row-major order, shaped like the tensor."""
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)


def gather_step(ex: Executor, src: GpuTensor, dst: GpuTensor, source: np.ndarray, fill: float = 0.0) -> Step:
    """A step filling `dst` from `src`: `source` gives, per output element (row-major), the source
    element number, or -1 for `fill`; padding lanes get -2 (zero)."""
    src_pos = phwc4_positions(src.shape).ravel()
    source = np.asarray(source, np.int64).ravel()
    mapping = np.full(dst.shape.vec4s * 4, -2, np.int64)
    mapping[phwc4_positions(dst.shape).ravel()] = np.where(source >= 0, src_pos[np.maximum(source, 0)], -1)
    buf, n = ex.runtime.indices(mapping), mapping.size
    return ex.runtime.prepare("copy", "gather", (n,), src, buf, dst, n, float(fill))


def reshape_step(ex: Executor, src: GpuTensor, dst: GpuTensor) -> Step:
    """Same elements in the same row-major order, different BHWC shape."""
    return gather_step(ex, src, dst, numbered(dst.shape.dims))


def _unary_map(ex: Executor, op: Op, source: np.ndarray, fill: float = 0.0) -> Step:
    out = op.outputs[0]
    if source.size != out.num_elements:
        raise UnsupportedOp(f"op#{op.index} {op.name}: computed {source.size} elements, output has {out.num_elements}")
    return gather_step(ex, ex.tensor(op.inputs[0]), ex.tensor(out), source, fill)


def _const_ints(ex: Executor, op: Op, index: int) -> np.ndarray:
    t = op.input(index)
    v = t.data() if t is not None else None
    if v is None:
        raise UnsupportedOp(f"op#{op.index} {op.name}: input {index} must be a constant")
    return np.asarray(v, np.int64)


@lowering("RESHAPE", "SQUEEZE", "EXPAND_DIMS")
def reshape(ex: Executor, op: Op) -> Step:
    """The new shape comes from the output tensor, as in the delegate (ReshapeOperationParser)."""
    return _unary_map(ex, op, numbered(op.outputs[0].shape))


@lowering("TRANSPOSE")
def transpose(ex: Executor, op: Op) -> Step:
    return _unary_map(ex, op, numbered(op.inputs[0].shape).transpose(_const_ints(ex, op, 1)))


@lowering("SLICE")
def slice_(ex: Executor, op: Op) -> Step:
    """begin and size constant; size -1 means "to the end"."""
    shape = op.inputs[0].shape
    begin, size = _const_ints(ex, op, 1), _const_ints(ex, op, 2)
    index = tuple(slice(b, shape[i] if s < 0 else b + s) for i, (b, s) in enumerate(zip(begin, size)))
    return _unary_map(ex, op, numbered(shape)[index])


@lowering("STRIDED_SLICE")
def strided_slice(ex: Executor, op: Op) -> Step:
    """begin / end / strides constant, with begin, end and shrink-axis masks (TFLite's
    strided_slice semantics, offset=false); ellipsis and new-axis masks are not supported, as in
    the delegate."""
    o = options(op)
    if o.ellipsisMask or o.newAxisMask or getattr(o, "offset", False):
        raise UnsupportedOp(f"op#{op.index} STRIDED_SLICE: ellipsis / new-axis masks and offset are not supported")
    begin, end, strides = (_const_ints(ex, op, i) for i in (1, 2, 3))
    index = []
    for i in range(len(begin)):
        if o.shrinkAxisMask >> i & 1:
            index.append(int(begin[i]))
            continue
        b = None if o.beginMask >> i & 1 else int(begin[i])
        e = None if o.endMask >> i & 1 else int(end[i])
        index.append(slice(b, e, int(strides[i])))
    return _unary_map(ex, op, numbered(op.inputs[0].shape)[tuple(index)])


@lowering("PAD", "PADV2")
def pad(ex: Executor, op: Op) -> Step:
    fill = ex.value(op.input(2)) if len(op.inputs) > 2 and op.input(2) is not None else None
    source = np.pad(numbered(op.inputs[0].shape), _const_ints(ex, op, 1), constant_values=-1)
    return _unary_map(ex, op, source, float(np.ravel(fill)[0]) if fill is not None else 0.0)


@lowering("MIRROR_PAD")
def mirror_pad(ex: Executor, op: Op) -> Step:
    """mode 0 REFLECT (edge not repeated), 1 SYMMETRIC (edge repeated)."""
    mode = "reflect" if options(op).mode == 0 else "symmetric"
    return _unary_map(ex, op, np.pad(numbered(op.inputs[0].shape), _const_ints(ex, op, 1), mode=mode))


@lowering("TILE")
def tile(ex: Executor, op: Op) -> Step:
    return _unary_map(ex, op, np.tile(numbered(op.inputs[0].shape), _const_ints(ex, op, 1)))


@lowering("DEPTH_TO_SPACE")
def depth_to_space(ex: Executor, op: Op) -> Step:
    """out[b, h*k + i, w*k + j, c] = in[b, h, w, (i*k + j) * C_out + c]."""
    k = options(op).blockSize
    b, h, w, c = op.inputs[0].shape
    src = numbered((b, h, w, c)).reshape(b, h, w, k, k, c // (k * k)).transpose(0, 1, 3, 2, 4, 5)
    return _unary_map(ex, op, src.reshape(b, h * k, w * k, c // (k * k)))


@lowering("SPACE_TO_DEPTH")
def space_to_depth(ex: Executor, op: Op) -> Step:
    """The inverse of DEPTH_TO_SPACE."""
    k = options(op).blockSize
    b, h, w, c = op.inputs[0].shape
    src = numbered((b, h, w, c)).reshape(b, h // k, k, w // k, k, c).transpose(0, 1, 3, 2, 4, 5)
    return _unary_map(ex, op, src.reshape(b, h // k, w // k, c * k * k))


@lowering("GATHER")
def gather(ex: Executor, op: Op) -> Step:
    """Constant indices as an index map; runtime indices (a second GPU input in the delegate) read
    by opencl/indexed.cl."""
    if ex.value(op.input(1)) is None:
        from gpucompat.opencl.ops.indexed import gather_runtime

        return gather_runtime(ex, op)
    axis = options(op).axis % len(op.inputs[0].shape)
    return _unary_map(ex, op, np.take(numbered(op.inputs[0].shape), _const_ints(ex, op, 1), axis=axis))


def _pieces(ex: Executor, op: Op, data: int, parts: list[np.ndarray]) -> Step:
    src = ex.tensor(op.inputs[data])
    return sequence([gather_step(ex, src, ex.tensor(t), p) for t, p in zip(op.outputs, parts)])


@lowering("SPLIT")
def split(ex: Executor, op: Op) -> Step:
    """Inputs (axis, data)."""
    axis = int(_const_ints(ex, op, 0)) % len(op.inputs[1].shape)
    return _pieces(ex, op, 1, np.split(numbered(op.inputs[1].shape), len(op.outputs), axis=axis))


@lowering("SPLIT_V")
def split_v(ex: Executor, op: Op) -> Step:
    """Inputs (data, size_splits, axis)."""
    shape = op.inputs[0].shape
    axis = int(_const_ints(ex, op, 2)) % len(shape)
    sizes = [t.shape[axis] for t in op.outputs]
    return _pieces(ex, op, 0, np.split(numbered(shape), np.cumsum(sizes)[:-1], axis=axis))


@lowering("UNPACK")
def unpack(ex: Executor, op: Op) -> Step:
    shape = op.inputs[0].shape
    axis = options(op).axis % len(shape)
    return _pieces(ex, op, 0, [np.take(numbered(shape), i, axis=axis) for i in range(len(op.outputs))])


def _assemble(ex: Executor, op: Op, join) -> Step:
    """CONCATENATION / PACK: each input scattered into its place in the output."""
    out = ex.tensor(op.outputs[0])
    owner = join([np.full(t.shape, k, np.int64) for k, t in enumerate(op.inputs)]).ravel()
    element = join([numbered(t.shape) for t in op.inputs]).ravel()
    dst_pos = phwc4_positions(out.shape).ravel()
    steps = []
    for k, t in enumerate(op.inputs):
        src = ex.tensor(t)
        mapping = np.full(src.shape.vec4s * 4, -1, np.int64)
        mine = owner == k
        mapping[phwc4_positions(src.shape).ravel()[element[mine]]] = dst_pos[mine]
        steps.append(_scatter_step(ex, src, out, mapping))
    return sequence(steps)


def _scatter_step(ex: Executor, src: GpuTensor, dst: GpuTensor, mapping: np.ndarray) -> Step:
    buf, n = ex.runtime.indices(mapping), mapping.size
    return ex.runtime.prepare("copy", "scatter", (n,), src, buf, dst, n)


@lowering("CONCATENATION")
def concatenation(ex: Executor, op: Op) -> Step:
    if options(op).fusedActivationFunction:
        raise UnsupportedOp(f"op#{op.index} CONCATENATION: fused activations are not supported")
    axis = options(op).axis % len(op.outputs[0].shape)
    return _assemble(ex, op, lambda parts: np.concatenate(parts, axis=axis))


@lowering("PACK")
def pack(ex: Executor, op: Op) -> Step:
    axis = options(op).axis % len(op.outputs[0].shape)
    return _assemble(ex, op, lambda parts: np.stack(parts, axis=axis))


def keepdims_tensor(ex: Executor, shape: BHWC, dst: GpuTensor) -> tuple[GpuTensor, Step | None]:
    """A tensor of BHWC `shape` to compute into, and the reshape step into `dst` when `dst` has a
    different BHWC shape (a reduction without keep_dims changes the rank)."""
    if shape == dst.shape:
        return dst, None
    tmp = ex.runtime.empty(shape)
    return tmp, reshape_step(ex, tmp, dst)
