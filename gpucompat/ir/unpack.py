"""Unpack a model's flatbuffer into the schema's object-API records, fast and without its weights.

The generated object API (`ModelT.InitFromPackedBuf`) costs about 0.2 ms per operator and copies
nothing lazily. Here the tables every model has by the thousand (tensors, operators, buffers) are
read into the same `TensorT` / `OperatorT` records the object API makes, the tables of one layout
a field at a time for all of them (gpucompat/ir/columns.py), a rare layout with struct reads;
a table carrying a rarely used field (sparsity, variant tensors, builtin_options_2, ...) is handed
to the object API whole, so every field still survives a load/save. A buffer's bytes are never
read: its `data` is a numpy view of the file (a slice of the map) that costs nothing until a rule
reads it. Bad offsets raise (struct.error, ValueError, IndexError), as the object API does.
"""

from __future__ import annotations

import struct

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import columns
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
# BuiltinOptions union type -> the record BuiltinOptionsCreator makes of it (without its chain of
# comparisons, a hundred deep for the later types)
_OPTIONS = {v: getattr(fb, f"{k}T") for k, v in vars(fb.BuiltinOptions).items()
            if not k.startswith("_") and k != "NONE"}
_SCALARS = frozenset({int, float, bool, type(None)})


class _Reader:
    """Field access for one file; vtables (shared by most tables of a kind) are parsed once."""

    def __init__(self, buf):
        self.buf = buf
        self.data = columns.as_bytes(buf)
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
    slots = np.arange(p + 4, p + 4 + 4 * n, 4, dtype=np.int64)  # where each uoffset is stored
    return (slots + np.frombuffer(buf, "<u4", n, p + 4)).tolist()


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
            rec.buffers = _many(r, _tables(buf, root + f[4]), fb.BufferT, _BUFFER_FIELDS, None, _no_tables)
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
        sg.tensors = _many(r, _tables(r.buf, pos + f[0]), fb.TensorT, _TENSOR_FIELDS, _TENSOR_FAST, _tensor_tables)
    if 3 in present:
        sg.operators = _many(r, _tables(r.buf, pos + f[3]), fb.OperatorT, _OPERATOR_FIELDS, _OPERATOR_FAST,
                             _operator_tables)
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


def _tensor_tables(r: _Reader, records: list, at: list[int], f: tuple[int, ...], present: frozenset[int]) -> None:
    """The table-valued field of tensors of one layout: their quantization parameters (the
    converter writes an empty table for every float tensor)."""
    if 4 not in present:
        return
    where = columns.targets(r.data, np.asarray(at, np.int64) + f[4])
    layouts = columns.table_starts(r.data, where)[1].tolist()
    empty: dict[int, bool] = {}  # layout -> no field present
    for t, q, vt in zip(records, where.tolist(), layouts):
        if vt not in empty:
            empty[vt] = not r.fields(q)[1]
        t.quantization = (fb.QuantizationParametersT() if empty[vt]
                          else fb.QuantizationParametersT.InitFromBuf(r.buf, q))


def _operator_tables(r: _Reader, records: list, at: list[int], f: tuple[int, ...], present: frozenset[int]) -> None:
    """The table-valued field of operators of one layout: their builtin options. The converter
    writes a table per op, most of them alike (every ADD without an activation): a table of the
    same kind, vtable and field bytes as one already read, whose record holds only scalars, gets
    a copy of that record instead of being read again."""
    if 4 not in present:
        return
    buf = r.buf
    seen: dict[tuple, object] = {}  # (kind, vtable, field bytes) -> the record read, None: read each
    for o, p in zip(records, at):
        kind = _OPTIONS.get(o.builtinOptionsType)
        if kind is None:  # NONE, or a type this schema does not know: what BuiltinOptionsCreator gives
            o.builtinOptions = None
            continue
        pos = _target(buf, p + f[4])
        offsets, _ = r.fields(pos)
        key = (kind, pos - _I32(buf, pos)[0], bytes(buf[pos + 4:pos + max(offsets, default=0) + 8]))
        first = seen.get(key)
        if first is not None:
            o.builtinOptions = record = object.__new__(kind)
            record.__dict__.update(first.__dict__)
        else:
            o.builtinOptions = record = kind.InitFromBuf(buf, pos)
            if key not in seen:
                seen[key] = record if all(type(v) in _SCALARS for v in vars(record).values()) else None


def _no_tables(r: _Reader, records: list, at: list[int], f: tuple[int, ...], present: frozenset[int]) -> None:
    """Buffers have no table-valued field."""


# A layout shared by fewer tables than this is read a table at a time (numpy's fixed cost per
# field would outweigh what it saves).
_MANY = 16
_COLUMNS = {_int_tuple: columns.int_tuples, _ints: columns.int_lists, _string: columns.strings, _i8: columns.i8,
            _u8: columns.u8, _u32: columns.u32, _i32: columns.i32, _bool: columns.boolean}


def _many(r: _Reader, positions: list[int], kind, spec, fast: frozenset[int] | None, tables) -> list:
    """Records of the tables at `positions` (as `_record` reads one, then `tables` reads its
    table-valued fields). The tables of one layout are read a field at a time for all of them
    (gpucompat/ir/columns.py)."""
    buf = r.buf
    out: list = [None] * len(positions)
    pos, layouts = columns.table_starts(r.data, positions)
    order = np.argsort(layouts, kind="stable")
    cuts = np.flatnonzero(np.diff(layouts[order])) + 1
    for members in np.split(order, cuts) if len(order) else ():
        first = positions[members[0]]
        f, present, plan = r.plan(first, spec)
        if len(members) < _MANY or (fast is not None and not present <= fast):
            for k in members.tolist():
                record, f_k, present_k = _record(r, positions[k], kind, spec, fast)
                tables(r, [record], [positions[k]], f_k, present_k)
                out[k] = record
            continue
        at = pos[members]
        records = [kind() for _ in range(len(members))]
        for name, read, offset in plan:
            column = _COLUMNS.get(read)
            values = column(r.data, at + offset) if column else [read(buf, p) for p in (at + offset).tolist()]
            for record, value in zip(records, values):
                setattr(record, name, value)
        tables(r, records, at.tolist(), f, present)
        for k, record in zip(members.tolist(), records):
            out[k] = record
    return out
