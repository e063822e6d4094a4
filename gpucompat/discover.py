"""Turn command-line paths (files, directories, glob patterns) into model files."""

from __future__ import annotations

import glob
import os
import sys

from gpucompat.errors import GpucompatError
from gpucompat.text import printable


def model_paths(args: list[str]) -> list[str]:
    """Model files named by `args`: files as given, directories searched recursively for
    *.tflite and *.litertlm, glob patterns expanded, LiteRT-LM bundles replaced by their TFLite
    sections (`BUNDLE::section N`; what else a bundle holds is said on stderr). An argument
    that names nothing is an error."""
    return [p for path in _files(args) for p in _bundle_sections(path)]


def _bundle_sections(path: str) -> list[str]:
    """[path], or for a LiteRT-LM bundle the paths of its TFLite sections."""
    from gpucompat.ir import litertlm
    from gpucompat.ir.mapped import map_file

    if not os.path.isfile(path) or not litertlm.is_bundle(path):
        return [path]
    found = litertlm.sections(path, map_file(path))
    models = [s for s in found if s.is_tflite]
    others = ", ".join(f"section {s.index} ({s.kind_name})" for s in found if not s.is_tflite)
    note = f"LiteRT-LM bundle of {len(found)} sections; TFLite models: " + \
        (", ".join(f"section {s.index}" for s in models) or "none")
    if others:
        note += f"; not TFLite models, not checked: {others}"
    sys.stderr.write(printable(f"gpucompat: {path}: {note}") + "\n")
    if not models:
        raise GpucompatError(f"{path}: the LiteRT-LM bundle holds no TFLite model")
    return [litertlm.section_path(path, s.index) for s in models]


def _files(args: list[str]) -> list[str]:
    out: list[str] = []
    for arg in args:
        if os.path.isdir(arg):
            found = sorted(p for pattern in ("*.tflite", "*.litertlm")
                           for p in glob.glob(os.path.join(glob.escape(arg), "**", pattern), recursive=True))
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
