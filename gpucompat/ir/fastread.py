"""Faster flatbuffer field access while the object API unpacks a model.

The generated `_UnPack` code reads every field through `flatbuffers.table.Table.Get` and
`.Offset`, which re-validate their integer arguments on each of the ~70,000 reads a 330-op model
needs; the validation costs half of `gpucompat check`'s load time. Inside `fast_tables()` the two
methods read the same bytes with the same struct formats, without re-validating arguments that
come from the file's own offsets (a bad offset still raises struct.error, which the reader turns
into a one-line error). The originals are restored on exit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from flatbuffers import number_types, table

_SOFFSET = number_types.SOffsetTFlags.packer_type
_VOFFSET = number_types.VOffsetTFlags.packer_type


def _get(self, flags, off):
    return flags.packer_type.unpack_from(self.Bytes, off)[0]


def _offset(self, vtable_offset):
    vtable = self.Pos - _SOFFSET.unpack_from(self.Bytes, self.Pos)[0]
    if vtable_offset < _VOFFSET.unpack_from(self.Bytes, vtable)[0]:
        return _VOFFSET.unpack_from(self.Bytes, vtable + vtable_offset)[0]
    return 0


@contextlib.contextmanager
def fast_tables() -> Iterator[None]:
    """Swap in the unvalidated accessors for the duration of an unpack."""
    saved = table.Table.Get, table.Table.Offset
    table.Table.Get, table.Table.Offset = _get, _offset
    try:
        yield
    finally:
        table.Table.Get, table.Table.Offset = saved
