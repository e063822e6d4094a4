"""Where zoo models and their judgements are kept: ~/.cache/gpucompat-zoo (GPUCOMPAT_ZOO_CACHE),
one folder per builder family and the versions of the tools that built it, never in the repository."""

from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    """The zoo's cache directory."""
    return Path(os.environ.get("GPUCOMPAT_ZOO_CACHE") or Path.home() / ".cache" / "gpucompat-zoo")


def model_path(versions: str, name: str, suffix: str = ".tflite") -> Path:
    """Where the model `name`, built by tools at `versions` (e.g. "tf2.21.0-keras3.15.1"), is kept
    (a LiteRT-LM bundle with the suffix ".litertlm")."""
    return root() / "models" / versions / f"{name}{suffix}"


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file beside it, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    part.replace(path)
