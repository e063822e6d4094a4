"""Read one field of many flatbuffer tables at once, with numpy.

A model's tensors and operators are tables of a handful of layouts (the converter shares a vtable
between tables with the same fields present), so the tables of one layout keep each field at the
same offset from their start. Reading a field of all of them is then a gather from the file's
bytes instead of one struct call per table: a 20,000-op model reads its tensor and operator fields
several times faster. Offsets come from the file: a bad one raises (IndexError, ValueError), never
reads outside the buffer, and a length that runs past the end is refused before anything is
allocated for it.
"""

from __future__ import annotations

import numpy as np

_WORD = np.arange(4, dtype=np.int64)


def as_bytes(buf) -> np.ndarray:
    """The whole buffer as a uint8 array (a view: nothing is copied)."""
    return np.frombuffer(buf, dtype=np.uint8)


def table_starts(data: np.ndarray, positions) -> tuple[np.ndarray, np.ndarray]:
    """(positions, vtable positions) of the tables at `positions`, as int64 arrays; tables
    sharing a vtable position have one layout."""
    pos = np.asarray(positions, dtype=np.int64)
    return pos, pos - _words(data, pos, "<i4")


def _words(data: np.ndarray, at: np.ndarray, dtype: str) -> np.ndarray:
    """The 4-byte little-endian values at byte offsets `at` (any alignment)."""
    if not len(at):
        return np.zeros(0, np.int64)
    return data[at[:, None] + _WORD].view(dtype).reshape(-1).astype(np.int64)


def targets(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Follow the uoffsets stored at `at`."""
    return at + _words(data, at, "<u4")


def _ragged(data: np.ndarray, at: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """(element bytes, element counts) of the vectors the uoffsets at `at` point to, each
    element `width` bytes, concatenated in table order."""
    heads = targets(data, at)
    counts = _words(data, heads, "<u4")
    if len(heads) and int((heads + 4 + counts * width).max()) > len(data):
        raise ValueError("vector runs past the end of the file")
    sizes = counts * width
    total = int(sizes.sum())
    firsts = np.cumsum(sizes) - sizes
    index = np.arange(total, dtype=np.int64) + np.repeat(heads + 4 - firsts, sizes)
    return data[index], counts


def _split(flat: list, counts: np.ndarray, make) -> list:
    """`flat` cut into consecutive runs of `counts`, each made into `make(run)`."""
    out = []
    start = 0
    for n in counts.tolist():
        out.append(make(flat[start:start + n]))
        start += n
    return out


def u8(data: np.ndarray, at: np.ndarray) -> list[int]:
    """The uint8 at each offset."""
    return data[at].tolist()


def i8(data: np.ndarray, at: np.ndarray) -> list[int]:
    """The int8 at each offset."""
    return data[at].view(np.int8).tolist()


def boolean(data: np.ndarray, at: np.ndarray) -> list[bool]:
    """The bool at each offset."""
    return (data[at] != 0).tolist()


def u32(data: np.ndarray, at: np.ndarray) -> list[int]:
    """The uint32 at each offset."""
    return _words(data, at, "<u4").tolist()


def i32(data: np.ndarray, at: np.ndarray) -> list[int]:
    """The int32 at each offset."""
    return _words(data, at, "<i4").tolist()


def int_tuples(data: np.ndarray, at: np.ndarray) -> list[tuple[int, ...]]:
    """The int32 vector each uoffset points to, as a tuple of Python ints."""
    raw, counts = _ragged(data, at, 4)
    return _split(raw.view("<i4").tolist(), counts, tuple)


def int_lists(data: np.ndarray, at: np.ndarray) -> list[list[int]]:
    """The int32 vector each uoffset points to, as a list of Python ints."""
    raw, counts = _ragged(data, at, 4)
    return _split(raw.view("<i4").tolist(), counts, list)


def strings(data: np.ndarray, at: np.ndarray) -> list[bytes]:
    """The string each uoffset points to, as bytes."""
    raw, counts = _ragged(data, at, 1)
    return _split(raw.tobytes(), counts, bytes)
