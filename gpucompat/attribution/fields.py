"""Reading fields of a flatbuffer table by slot, for the metadata entries attribution reads
(CONVERSION_METADATA, debug_metadata) whose schemas ai_edge_litert does not generate. A slot is
4 + 2 x the field's id; an absent field reads as its default."""

from __future__ import annotations

from flatbuffers import encode, number_types, packer
from flatbuffers.table import Table


def root(buf: bytearray) -> Table:
    """The buffer's root table."""
    return Table(buf, encode.Get(packer.uoffset, buf, 0))


def table(t: Table, slot: int) -> Table | None:
    """A table field, None when absent."""
    o = t.Offset(slot)
    return Table(t.Bytes, t.Indirect(t.Pos + o)) if o else None


def tables(t: Table, slot: int) -> list[Table]:
    """A vector of tables."""
    o = t.Offset(slot)
    if not o:
        return []
    start = t.Vector(o)
    return [Table(t.Bytes, t.Indirect(start + 4 * i)) for i in range(t.VectorLen(o))]


def byte_vector(t: Table, slot: int) -> list[int]:
    """A vector of bytes (a union vector's types)."""
    o = t.Offset(slot)
    return list(t.Bytes[t.Vector(o): t.Vector(o) + t.VectorLen(o)]) if o else []


def uints(t: Table, slot: int) -> list[int]:
    """A vector of uint32."""
    o = t.Offset(slot)
    if not o:
        return []
    start = t.Vector(o)
    return [encode.Get(packer.uint32, t.Bytes, start + 4 * i) for i in range(t.VectorLen(o))]


def byte(t: Table, slot: int) -> int:
    """A ubyte field (a union's type)."""
    o = t.Offset(slot)
    return t.Get(number_types.Uint8Flags, t.Pos + o) if o else 0


def uint(t: Table, slot: int) -> int:
    """A uint32 field."""
    o = t.Offset(slot)
    return t.Get(number_types.Uint32Flags, t.Pos + o) if o else 0


def int32(t: Table, slot: int) -> int:
    """An int32 field (an enum)."""
    o = t.Offset(slot)
    return t.Get(number_types.Int32Flags, t.Pos + o) if o else 0


def string(t: Table, slot: int) -> str | None:
    """A string field, None when absent."""
    o = t.Offset(slot)
    return t.String(t.Pos + o).decode("utf-8") if o else None
