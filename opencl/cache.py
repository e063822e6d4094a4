"""Compiled programs on disk, the delegate's serialization idea: one file per (device + driver,
model fingerprint, precision) holding every program the model needs, so a warm start loads
binaries instead of compiling.

Writers go through a temporary file and a rename, so two processes sharing the directory never see
a half-written file (the last writer wins, and both wrote the same binaries).

The file is data only, never code (whoever can write to the cache directory must not be able to run
anything through it): a magic line, the length of a JSON header, the header listing each program's
key, size and SHA-256, then the binaries back to back. Anything that does not match exactly (a
truncated, corrupt, foreign or older file) is a cache miss, rebuilt and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import tempfile

MAGIC = b"gpucompat program cache\n"
FORMAT = 2
_HEADER_LENGTH = struct.Struct("<I")
_KEY = re.compile(r"[0-9a-f]{24}")


def default_dir() -> str:
    """The user cache directory ($XDG_CACHE_HOME/gpucompat/programs, ~/.cache/... by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpucompat", "programs")


def fingerprint(model_bytes: bytes) -> str:
    """A model's identity for the cache: a hash of its bytes."""
    return hashlib.sha256(model_bytes).hexdigest()[:24]


def source_key(source: str, options: list[str]) -> str:
    """Identity of one program inside a cache file: its source and build options."""
    return hashlib.sha256("\0".join([source, *options]).encode()).hexdigest()[:24]


class ProgramCache:
    """Binaries for one model on one device, loaded at init and saved once after the first run."""

    def __init__(self, directory: str | None, device_key: str, model_key: str, precision: str):
        self.path = (os.path.join(directory, device_key, f"{model_key}-{precision}.bin")
                     if directory else None)
        self.binaries: dict[str, bytes] = self._read()
        self.dirty = False

    def _read(self) -> dict[str, bytes]:
        if not self.path or not os.path.exists(self.path):
            return {}
        try:
            with open(self.path, "rb") as f:
                return decode(f.read())
        except (OSError, ValueError, RecursionError):  # unreadable, corrupt, foreign or old: rebuild
            return {}

    def get(self, key: str) -> bytes | None:
        """The binary stored under `key`, if any."""
        return self.binaries.get(key)

    def put(self, key: str, binary: bytes) -> None:
        """Remember a freshly compiled binary (written by `save`)."""
        self.binaries[key] = binary
        self.dirty = True

    def save(self) -> None:
        """Write the file atomically when something new was compiled; a failure to write (read-only
        directory, disk full) only costs the next start its warm cache."""
        if self.path and self.dirty and write_quietly(self.path, encode(self.binaries), ".programs-"):
            self.dirty = False


def write_quietly(path: str, data: bytes, prefix: str) -> bool:
    """Write `data` to `path` atomically, its directory made as needed; False, leaving nothing
    behind, when that fails (read-only directory, disk full): a cache only loses its next hit."""
    directory = os.path.dirname(path)
    tmp = None
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=directory)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
        return False


def encode(binaries: dict[str, bytes]) -> bytes:
    """The file's bytes: magic, header length, JSON header, binaries in header order."""
    entries = [{"key": k, "size": len(b), "sha256": hashlib.sha256(b).hexdigest()} for k, b in binaries.items()]
    header = json.dumps({"format": FORMAT, "programs": entries}).encode()
    return b"".join([MAGIC, _HEADER_LENGTH.pack(len(header)), header, *binaries.values()])


def decode(data: bytes) -> dict[str, bytes]:
    """The binaries of a cache file; ValueError unless every field and checksum is as `encode`
    writes it."""
    start = len(MAGIC) + _HEADER_LENGTH.size
    if not data.startswith(MAGIC) or len(data) < start:
        raise ValueError("not a program cache file")
    (length,) = _HEADER_LENGTH.unpack_from(data, len(MAGIC))
    header = json.loads(data[start:start + length])  # JSONDecodeError is a ValueError
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("programs"), list):
        raise ValueError("another cache format")
    binaries, offset = {}, start + length
    for entry in header["programs"]:
        key, size, digest = (entry.get(f) if isinstance(entry, dict) else None for f in ("key", "size", "sha256"))
        if not (isinstance(key, str) and _KEY.fullmatch(key) and isinstance(size, int) and 0 <= size):
            raise ValueError("malformed entry")
        binary = data[offset:offset + size]
        if len(binary) != size or hashlib.sha256(binary).hexdigest() != digest:
            raise ValueError("truncated or corrupt binary")
        binaries[key], offset = binary, offset + size
    if offset != len(data):
        raise ValueError("trailing bytes")
    return binaries
