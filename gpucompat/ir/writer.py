"""Write the IR back to .tflite bytes, and to disk atomically."""

from __future__ import annotations

import io
import os
import struct
import tempfile
from collections.abc import Callable
from typing import BinaryIO

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.errors import GpucompatError
from gpucompat.ir import litertlm
from gpucompat.ir.mapped import FileMap, copy_range
from gpucompat.ir.model import Model
from gpucompat.ir.nodes import OpCode
from gpucompat.ir.reader import FILE_IDENTIFIER, opcode_of

_PLACEHOLDER_FOR_GREATER_OP_CODES = 127


# flatbuffers' limit: offsets are 32-bit and its verifiers refuse buffers of 2 GB or more. Past
# it, constants go after the flatbuffer (Buffer.offset/size), as the converter writes them.
FLATBUFFER_LIMIT = 2**31
_ALIGN = 16  # constant data start 16-byte aligned, as the converter writes them
_BUFFER_LOCATION = "buffer_location"


def to_bytes(model: Model, *, inline_limit: int = FLATBUFFER_LIMIT) -> bytes:
    """Serialise the model into memory (see write_model)."""
    out = io.BytesIO()
    write_model(model, out, inline_limit=inline_limit)
    return out.getvalue()


def write_model(model: Model, out: BinaryIO, *, inline_limit: int = FLATBUFFER_LIMIT) -> None:
    """Write the model to the binary file `out`. An untouched model keeps every record, index and
    table order, and its buffer layout: constants inside the flatbuffer (as vectors placed after
    every table), or after it (offset/size) when the source file had them there or when inside
    they would reach `inline_limit`. Buffers still holding the source file's bytes are copied
    from the file by the kernel, in chunks, never read into memory."""
    rec = _prepare(model)
    if model.offset_buffers or not _write_inline(model, rec, out, inline_limit):
        _write_outside(model, rec, out)


def _write_inline(model: Model, rec, out: BinaryIO, inline_limit: int) -> bool:
    """Constants as flatbuffer vectors after the tables; False (nothing written) when the file
    would reach `inline_limit`."""
    buffers = rec.buffers or []
    pieces = [(i, b.data) for i, b in enumerate(buffers) if b.data is not None]
    end, places = _tail_layout([len(d) for _, d in pieces], 0, prefixed=True)
    # A vector's uoffset may point past the tables: give the builder a negative offset from its end.
    head = _pack(rec, {i: _Ref(data=-at) for (i, _), at in zip(pieces, places)})
    if len(head) + end >= inline_limit:
        return False
    out.write(head)
    written = 0
    for (_, d), at in zip(pieces, places):
        _emit_data(out, model.source, d, b"\0" * (at - written) + struct.pack("<I", len(d)))
        written = at + 4 + len(d)
    return True


def _write_outside(model: Model, rec, out: BinaryIO) -> None:
    """The converter's layout past 2 GB: tables, then each constant 16-byte aligned, addressed by
    Buffer.offset/size from the file's start; metadata buffers stay inside."""
    _mark_outside(model, rec)
    keep = _inline_buffers(rec)
    buffers = rec.buffers or []
    pieces = [(i, b.data) for i, b in enumerate(buffers) if b.data is not None and len(b.data) and i not in keep]
    inline = {i: _Ref(data=b.data) for i, b in enumerate(buffers)
              if b.data is not None and (i in keep or not len(b.data))}
    sizes = [len(d) for _, d in pieces]
    # Offsets are fixed-size fields: the tables' size does not depend on their values.
    start = _pad(len(_pack(rec, {**inline, **{i: _Ref(offset=2, size=n) for (i, _), n in zip(pieces, sizes)}})))
    end, places = _tail_layout(sizes, start, prefixed=False)
    head = _pack(rec, {**inline, **{i: _Ref(offset=at, size=n) for (i, _), at, n in zip(pieces, places, sizes)}})
    written = len(head)
    out.write(head)
    for (_, d), at in zip(pieces, places):
        _emit_data(out, model.source, d, b"\0" * (at - written))
        written = at + len(d)
    out.write(b"\0" * (_pad(end) - written))


def _prepare(model: Model):
    """The model record with op codes, operand indices, tensor and op lists renumbered from the IR."""
    rec = model.fb
    codes = rec.operatorCodes if rec.operatorCodes is not None else []
    code_index: dict[OpCode, int] = {}
    for i, c in enumerate(codes):
        code_index.setdefault(opcode_of(c), i)
    for g in model.graphs:
        pos = {id(t): i for i, t in enumerate(g.tensors)}
        for op in g.ops:
            if op.code not in code_index:
                codes.append(_opcode_record(op.code))
                code_index[op.code] = len(codes) - 1
            op.fb.opcodeIndex = code_index[op.code]
            op.fb.inputs = _int32([pos[id(t)] if t is not None else -1 for t in op.inputs])
            op.fb.outputs = _int32([pos[id(t)] for t in op.outputs])
            if op.intermediates or op.fb.intermediates is not None:
                op.fb.intermediates = _int32([pos[id(t)] for t in op.intermediates])
        for owner, details, field, target in model.quantization_links:
            if id(owner) in pos:  # a blockwise-quantized tensor still in the graph names its scales anew
                setattr(details, field, pos[id(target)])
        g.fb.tensors = [t.fb for t in g.tensors]
        g.fb.operators = [op.fb for op in g.ops]
        g.fb.inputs = _int32([pos[id(t)] for t in g.inputs])
        g.fb.outputs = _int32([pos[id(t)] for t in g.outputs])
    for tm, t in model.signature_links:
        tm.tensorIndex = t.index
    rec.operatorCodes = codes
    rec.subgraphs = [g.fb for g in model.graphs]
    return rec


class _Ref:
    """Stands in for a BufferT while the model record is packed: where its data went."""

    __slots__ = ("data", "offset", "size")

    def __init__(self, data=None, offset: int = 0, size: int = 0):
        self.data, self.offset, self.size = data, offset, size

    def Pack(self, builder):  # noqa: N802 - the object API's name
        data = builder.CreateNumpyVector(np.asarray(self.data, dtype=np.uint8)) \
            if isinstance(self.data, np.ndarray) else self.data
        fb.BufferStart(builder)
        if data is not None:
            # A negative offset from the builder's end: a vector in the data written after it.
            fb.BufferAddData(builder, data)
        fb.BufferAddOffset(builder, self.offset)
        fb.BufferAddSize(builder, self.size)
        return fb.BufferEnd(builder)


def _pack(rec, refs: dict) -> bytes:
    """The flatbuffer of `rec` with its buffers replaced by `refs` (index -> _Ref; empty when absent)."""
    buffers = rec.buffers
    if buffers is not None:
        rec.buffers = [refs.get(i) or _Ref(offset=b.offset, size=b.size) for i, b in enumerate(buffers)]
    try:
        builder = flatbuffers.Builder(1 << 16)
        builder.minalign = _ALIGN  # the data after the tables then start aligned too
        builder.Finish(rec.Pack(builder), file_identifier=FILE_IDENTIFIER)
    finally:
        rec.buffers = buffers
    return bytes(builder.Output())


def _pad(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def _tail_layout(sizes: list[int], start: int, prefixed: bool) -> tuple[int, list[int]]:
    """Where each piece of data goes after the tables: (end, positions). `prefixed` pieces are
    flatbuffer vectors (a 4-byte length, then data aligned to 16); others are raw and aligned."""
    at, places = start, []
    for n in sizes:
        at += (-(at + 4 * prefixed)) % _ALIGN
        places.append(at)
        at += 4 * prefixed + n
    return at, places


def _inline_buffers(rec) -> set[int]:
    """Buffers that stay inside the flatbuffer in the offset layout: metadata, which the runtime
    reads through Buffer.data alone (as the converter keeps them)."""
    keep = {m.buffer for m in rec.metadata or []}
    keep.update(int(i) for i in (rec.metadataBuffer if rec.metadataBuffer is not None else []))
    return keep


def _mark_outside(model: Model, rec) -> None:
    """Add the converter's `buffer_location` metadata ("outside flatbuffers") when absent."""
    names = {(m.name.decode() if isinstance(m.name, bytes) else m.name) for m in rec.metadata or []}
    if _BUFFER_LOCATION in names:
        return
    entry = fb.MetadataT()
    entry.name = _BUFFER_LOCATION
    entry.buffer = model.add_buffer(b"outside flatbuffers")
    rec.metadata = [*(rec.metadata or []), entry]


def _emit_data(out: BinaryIO, source, data: np.ndarray, before: bytes) -> None:
    """Write `before` (padding, a length) and one buffer's data: copied file to file when it is
    still a view of the source file's map, else from memory."""
    out.write(before)
    offset, fd = _offset_in(source, data), _fileno(out)
    if offset is None or fd is None:
        out.write(memoryview(np.ascontiguousarray(data, dtype=np.uint8)))
        return
    out.flush()
    copy_range(source.fd, offset, len(data), fd)
    out.seek(0, os.SEEK_END)


def _fileno(out: BinaryIO) -> int | None:
    """The descriptor of a real file; None for an in-memory one."""
    try:
        return out.fileno()
    except (AttributeError, OSError):  # io.UnsupportedOperation is an OSError
        return None


def _offset_in(source, data: np.ndarray) -> int | None:
    """Where `data` sits in the source file, when it is an untouched view of its map."""
    base = data.base
    if not isinstance(source, FileMap) or not isinstance(base, memoryview) or base.obj is not source \
            or not len(data):
        return None
    return data.ctypes.data - np.frombuffer(source, dtype=np.uint8, count=1).ctypes.data


def _int32(values: list[int]) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)


def _opcode_record(code: OpCode):
    r = fb.OperatorCodeT()
    r.builtinCode = code.builtin
    r.deprecatedBuiltinCode = min(code.builtin, _PLACEHOLDER_FOR_GREATER_OP_CODES)
    r.customCode = code.custom
    r.version = code.version
    return r


def write_atomic(data: bytes | Callable[[BinaryIO], None], path: str, *, protect: tuple[str, ...] = ()) -> None:
    """Write `data` (bytes, or a function writing into a binary file) to `path` through a
    temporary file in the same directory and a rename, so a failure (disk full, permission)
    leaves no partial file. Refuses to replace any path in
    `protect` (the command's inputs) unless the caller leaves it out on purpose."""
    target = os.path.abspath(path)
    for p in (litertlm.split(p)[0] for p in protect):
        if os.path.exists(p) and os.path.exists(target) and os.path.samefile(p, target):
            raise GpucompatError(f"{path}: refusing to overwrite the input model (pass --in-place to allow it)")
    directory = os.path.dirname(target) or "."
    if not os.path.isdir(directory):
        raise GpucompatError(f"{path}: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".gpucompat-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise GpucompatError(f"{path}: cannot write ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            data(f) if callable(data) else f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(target):
            os.chmod(tmp, os.stat(target).st_mode & 0o777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise GpucompatError(f"{path}: cannot write ({e.strerror or e}); nothing was written") from None
        raise


def save(model: Model, path: str, *, protect: tuple[str, ...] = ()) -> None:
    """Serialise and write the model atomically, streaming (see write_model)."""
    write_atomic(lambda f: write_model(model, f), path, protect=protect)
