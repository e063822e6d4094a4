"""Compiled programs on disk, the delegate's serialization idea: one file per (device + driver,
model fingerprint, precision) holding every program the model needs, so a warm start loads
binaries instead of compiling.

Writers go through a temporary file and a rename, so two processes sharing the directory never see
a half-written file (the last writer wins, and both wrote the same binaries). A file that cannot be
read is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile

FORMAT = 1


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
                version, binaries = pickle.load(f)
        except Exception:  # truncated, foreign or old file: rebuild
            return {}
        return binaries if version == FORMAT and isinstance(binaries, dict) else {}

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
        if not self.path or not self.dirty:
            return
        directory = os.path.dirname(self.path)
        tmp = None
        try:
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".programs-", dir=directory)
            with os.fdopen(fd, "wb") as f:
                pickle.dump((FORMAT, self.binaries), f)
            os.replace(tmp, self.path)
            self.dirty = False
        except OSError:
            if tmp and os.path.exists(tmp):
                os.unlink(tmp)
