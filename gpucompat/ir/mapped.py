"""A model file mapped read-only, and copying byte ranges of it without reading them into memory.

Reading a model maps its file instead of copying it in: slices of the map cost nothing until they
are read, so a rule that never looks at a weight never pages it in. Writing copies untouched
ranges file to file (`copy_range`: the kernel's copy_file_range, or pread/write in chunks where
the file system has no such call), so neither the map nor the process grows with the weights.
"""

from __future__ import annotations

import mmap
import os
import stat

from gpucompat.errors import ModelError

CHUNK = 16 << 20


class FileMap(mmap.mmap):
    """A read-only map of a whole file; `fd` is the descriptor ranges are copied from."""

    fd: int
    _file: object


def map_file(path: str) -> FileMap | bytes:
    """The file mapped read-only (see map_open), or a ModelError saying why it cannot be read."""
    if not os.path.exists(path):
        raise ModelError(path, "no such file")
    if os.path.isdir(path):
        raise ModelError(path, "is a directory, not a model file")
    try:
        return map_open(open(path, "rb"))  # noqa: SIM115 - the map keeps it open, for copy_range
    except (OSError, ValueError) as e:
        raise ModelError(path, f"cannot be read ({getattr(e, 'strerror', None) or e})") from None


def map_open(f) -> FileMap | bytes:
    """Map the open binary file `f` read-only; the map keeps `f` open. An empty file, or one that
    cannot be mapped (a pipe: `check <(curl ...)`), is read instead."""
    st = os.fstat(f.fileno())
    if st.st_size == 0 or not stat.S_ISREG(st.st_mode):
        with f:
            return f.read()
    view = FileMap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view.fd, view._file = f.fileno(), f
    return view


def copy_all(src: FileMap | bytes, out) -> None:
    """Write all of `src` to the binary file `out`: file to file for a map, else from memory."""
    if isinstance(src, FileMap):
        out.flush()
        copy_range(src.fd, 0, len(src), out.fileno())
        out.seek(0, os.SEEK_END)
    else:
        out.write(src)


def copy_range(src_fd: int, offset: int, size: int, dst_fd: int) -> None:
    """Append `size` bytes of `src_fd` from `offset` to `dst_fd` (at its current position)."""
    end = offset + size
    try:
        while offset < end:
            n = os.copy_file_range(src_fd, dst_fd, min(end - offset, 1 << 30), offset)
            if n == 0:
                raise OSError("source file ended early")
            offset += n
        return
    except (OSError, AttributeError) as e:
        if getattr(e, "errno", None) not in (None, 18, 22, 38, 95):  # EXDEV, EINVAL, ENOSYS, EOPNOTSUPP
            raise
    while offset < end:
        chunk = os.pread(src_fd, min(end - offset, CHUNK), offset)
        if not chunk:
            raise OSError("source file ended early")
        write_all(dst_fd, chunk)
        offset += len(chunk)


def write_all(fd: int, data) -> None:
    """os.write until every byte of `data` is written."""
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]
