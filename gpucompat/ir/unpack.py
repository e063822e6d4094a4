"""Unpack a model's flatbuffer into the schema's object-API records, fast and without its weights.

The generated object API (`ModelT.InitFromPackedBuf`) costs about 0.2 ms per operator and copies
nothing lazily. Here the tables every model has by the thousand (tensors, operators, buffers) are
read with direct struct reads into the same `TensorT` / `OperatorT` records the object API makes;
a table carrying a rarely used field (sparsity, variant tensors, builtin_options_2, ...) is handed
to the object API whole, so every field still survives a load/save. A buffer's bytes are never
read: its `data` is a numpy view of the file (a slice of the map) that costs nothing until a rule
reads it. Bad offsets raise (struct.error, ValueError, IndexError), as the object API does.
"""

from __future__ import annotations

import struct

import numpy as np
from ai_edge_litert import schema_py_generated as fb
from flatbuffers import table

from gpucompat.ir.fastread import fast_tables

_I32 = struct.Struct("<i").unpack_from
_U32 = struct.Struct("<I").unpack_from
_U16 = struct.Struct("<H").unpack_from
_U8 = struct.Struct("<B").unpack_from
_I8 = struct.Struct("<b").unpack_from
_U64 = struct.Struct("<Q").unpack_from

# Fields read here; a table with any other field present goes to the object API.
_OPERATOR_FAST = frozenset({0, 1, 2, 3, 4, 5, 6, 8, 13})
_TENSOR_FAST = frozenset({0, 1, 2, 3, 4, 5, 7, 8})


class _Reader:
    """Field access for one file; vtables (shared by most tables of a kind) are parsed once."""

    def __init__(self, buf):
        self.buf = buf
        self._vtables: dict[int, tuple[tuple[int, ...], frozenset[int]]] = {}
        self._plans: dict[tuple[int, int], tuple] = {}

    def plan(self, pos: int, spec) -> tuple[tuple[int, ...], frozenset[int], list]:
        """fields(pos), and the (attribute, reader, offset) of each field of `spec` the table
        has: worked out once per vtable and spec."""
        key = (pos - _I32(self.buf, pos)[0], id(spec))
        got = self._plans.get(key)
        if got is None:
            f, present = self.fields(pos)
            got = self._plans[key] = (f, present, [(name, read, f[i]) for i, name, read in spec if i in present])
        return got

    def fields(self, pos: int) -> tuple[tuple[int, ...], frozenset[int]]:
        """The table's field offsets relative to `pos` (0 = absent), and the present fields."""
        vt = pos - _I32(self.buf, pos)[0]
        got = self._vtables.get(vt)
        if got is None:
            n = max((_U16(self.buf, vt)[0] - 4) >> 1, 0)
            offsets = struct.unpack_from(f"<{n}H", self.buf, vt + 4)
            got = self._vtables[vt] = (offsets, frozenset(i for i, f in enumerate(offsets) if f))
        return got


def _target(buf, at: int) -> int:
    """Follow the uoffset stored at `at`."""
    return at + _U32(buf, at)[0]


def _vector(buf, at: int, dtype) -> np.ndarray:
    """The vector the uoffset at `at` points to, as a numpy view (the object API's AsNumpy)."""
    p = _target(buf, at)
    return np.frombuffer(buf, dtype=dtype, count=_U32(buf, p)[0], offset=p + 4)


def _ints(buf, at: int) -> list[int]:
    """The int32 vector the uoffset at `at` points to, as Python ints (what the IR reads them as;
    the writer packs a list exactly as the object API's numpy array)."""
    return list(_int_tuple(buf, at))


def _int_tuple(buf, at: int) -> tuple[int, ...]:
    """The same as a tuple: how shapes are kept, so reading one costs no conversion."""
    p = _target(buf, at)
    return struct.unpack_from(f"<{_U32(buf, p)[0]}i", buf, p + 4)


def _string(buf, at: int) -> bytes:
    p = _target(buf, at)
    n = _U32(buf, p)[0]
    if p + 4 + n > len(buf):
        raise ValueError("string runs past the end of the file")
    return bytes(buf[p + 4 : p + 4 + n])


def _tables(buf, at: int) -> list[int]:
    """Positions of the tables in the vector of tables the uoffset at `at` points to."""
    p = _target(buf, at)
    n = _U32(buf, p)[0]
    if p + 4 + 4 * n > len(buf):
        raise ValueError("vector runs past the end of the file")
    offsets = struct.unpack_from(f"<{n}I", buf, p + 4)
    return [p + 4 + 4 * i + o for i, o in enumerate(offsets)]


def _field(fields: tuple[int, ...], i: int) -> int:
    return fields[i] if i < len(fields) else 0


def unpack_model(buf, root: int) -> fb.ModelT:
    """The ModelT of the model whose root table is at `root`; buffers hold views of `buf`."""
    r = _Reader(buf)
    with fast_tables():
        m = fb.Model()
        m.Init(buf, root)
        rec = fb.ModelT()
        f, _ = r.fields(root)
        rec.version = m.Version()
        if _field(f, 1):
            rec.operatorCodes = [fb.OperatorCodeT.InitFromBuf(buf, p) for p in _tables(buf, root + f[1])]
        if _field(f, 2):
            rec.subgraphs = [_subgraph(r, p) for p in _tables(buf, root + f[2])]
        rec.description = m.Description()
        if _field(f, 4):
            rec.buffers = [_buffer(r, p) for p in _tables(buf, root + f[4])]
        if _field(f, 5):
            rec.metadataBuffer = m.MetadataBufferAsNumpy()
        if _field(f, 6):
            rec.metadata = [fb.MetadataT.InitFromBuf(buf, p) for p in _tables(buf, root + f[6])]
        if _field(f, 7):
            rec.signatureDefs = [fb.SignatureDefT.InitFromBuf(buf, p) for p in _tables(buf, root + f[7])]
        if _field(f, 8):
            rec.externalBufferGroups = [fb.ExternalBufferGroupT.InitFromBuf(buf, p)
                                        for p in _tables(buf, root + f[8])]
        if _field(f, 9):
            rec.externalBuffers = [fb.ExternalBufferT.InitFromBuf(buf, p) for p in _tables(buf, root + f[9])]
    return rec


def _subgraph(r: _Reader, pos: int) -> fb.SubGraphT:
    sg, f, present = _record(r, pos, fb.SubGraphT, _SUBGRAPH_FIELDS)
    if 0 in present:
        sg.tensors = [_tensor(r, p) for p in _tables(r.buf, pos + f[0])]
    if 3 in present:
        sg.operators = [_operator(r, p) for p in _tables(r.buf, pos + f[3])]
    return sg


def _i8(buf, at: int) -> int:
    return _I8(buf, at)[0]


def _u8(buf, at: int) -> int:
    return _U8(buf, at)[0]


def _u32(buf, at: int) -> int:
    return _U32(buf, at)[0]


def _i32(buf, at: int) -> int:
    return _I32(buf, at)[0]


def _u64(buf, at: int) -> int:
    return _U64(buf, at)[0]


def _bool(buf, at: int) -> bool:
    return bool(_U8(buf, at)[0])


def _bytes(buf, at: int) -> np.ndarray:
    return _vector(buf, at, np.uint8)


# (field index, record attribute, reader) of the scalar and vector fields read here; the
# table-valued ones (quantization, builtin options) are read by hand below.
_TENSOR_FIELDS = ((0, "shape", _int_tuple), (1, "type", _i8), (2, "buffer", _u32), (3, "name", _string),
                  (5, "isVariable", _bool), (7, "shapeSignature", _int_tuple), (8, "hasRank", _bool))
_OPERATOR_FIELDS = ((0, "opcodeIndex", _u32), (1, "inputs", _ints), (2, "outputs", _ints),
                    (3, "builtinOptionsType", _u8), (5, "customOptions", _bytes),
                    (6, "customOptionsFormat", _i8), (8, "intermediates", _ints), (13, "debugMetadataIndex", _i32))


_SUBGRAPH_FIELDS = ((1, "inputs", _ints), (2, "outputs", _ints), (4, "name", _string),
                    (5, "debugMetadataIndex", _i32))
_BUFFER_FIELDS = ((0, "data", _bytes), (1, "offset", _u64), (2, "size", _u64))


def _record(r: _Reader, pos: int, kind, spec, fast=None):
    """(record, field offsets, present fields) of the table at `pos`: a `kind` record with the
    fields of `spec` read here, or, when the table has a field outside `fast`, the record the
    generated code makes of the whole table (and no offsets: nothing left to read)."""
    f, present, plan = r.plan(pos, spec)
    if fast is not None and not present <= fast:
        return kind.InitFromBuf(r.buf, pos), (), frozenset()
    record = kind()
    buf = r.buf
    for name, read, offset in plan:
        setattr(record, name, read(buf, pos + offset))
    return record, f, present


def _tensor(r: _Reader, pos: int) -> fb.TensorT:
    t, f, present = _record(r, pos, fb.TensorT, _TENSOR_FIELDS, _TENSOR_FAST)
    if 4 in present:
        q = _target(r.buf, pos + f[4])
        t.quantization = (fb.QuantizationParametersT() if not r.fields(q)[1]
                          else fb.QuantizationParametersT.InitFromBuf(r.buf, q))
    return t


def _operator(r: _Reader, pos: int) -> fb.OperatorT:
    o, f, present = _record(r, pos, fb.OperatorT, _OPERATOR_FIELDS, _OPERATOR_FAST)
    if 4 in present:
        o.builtinOptions = fb.BuiltinOptionsCreator(o.builtinOptionsType,
                                                    table.Table(r.buf, _target(r.buf, pos + f[4])))
    return o


def _buffer(r: _Reader, pos: int) -> fb.BufferT:
    """A BufferT whose data (when the table has any) is a view of `buf`: nothing is read."""
    return _record(r, pos, fb.BufferT, _BUFFER_FIELDS)[0]
