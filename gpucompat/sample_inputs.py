"""`--inputs PATH` for check, verify and fix: a .npz of arrays (gpucompat/npz_inputs.py) or a
directory of images (gpucompat/image_inputs.py), told apart by what PATH is."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from gpucompat.errors import GpucompatError


@dataclass
class Samples:
    """Representative inputs: one list of input values per sample, and what they are."""

    values: list[list[np.ndarray]]
    description: str  # the .npz's path, or the image directory and how its images were fed


def load(path: str, model, normalization=None) -> Samples:
    """The samples at `path` for `model` (ir.Model; its main subgraph's inputs): a directory is read
    as images, normalized by `normalization` (image_inputs.Normalization from the flags) or the
    model's metadata; anything else as a .npz, which takes no normalization."""
    if os.path.isdir(path):
        from gpucompat.image_inputs import load_images

        return Samples(*load_images(path, model, normalization))
    if normalization is not None:
        raise GpucompatError(f"{path}: {normalization.source} applies to a directory of images, not a .npz")
    from gpucompat.npz_inputs import load_samples

    return Samples(load_samples(path, model.graphs[0].inputs), path)
