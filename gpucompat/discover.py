"""Turn command-line paths (files, directories, glob patterns) into model files."""

from __future__ import annotations

import glob
import os

from gpucompat.errors import GpucompatError


def model_paths(args: list[str]) -> list[str]:
    """Model files named by `args`: files as given, directories searched recursively for
    *.tflite, glob patterns expanded. An argument that names nothing is an error."""
    out: list[str] = []
    for arg in args:
        if os.path.isdir(arg):
            found = sorted(glob.glob(os.path.join(glob.escape(arg), "**", "*.tflite"), recursive=True))
            if not found:
                raise GpucompatError(f"{arg}: directory contains no .tflite models")
            out.extend(found)
        elif glob.has_magic(arg) and not os.path.exists(arg):
            found = sorted(p for p in glob.glob(arg, recursive=True) if os.path.isfile(p))
            if not found:
                raise GpucompatError(f"{arg}: pattern matches no files")
            out.extend(found)
        else:
            out.append(arg)  # missing files are reported per model by the reader
    return list(dict.fromkeys(out))
