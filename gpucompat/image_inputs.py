"""Representative inputs from a directory of images (`--inputs DIR`), for a model with one image
input [1, H, W, C] (C = 1, 3 or 4; float32, or uint8 / int8 quantized): one sample per PNG or JPEG
file, in name order, turned upright (EXIF orientation), converted to C channels (grayscale, RGB,
RGBA), resized to W x H (bilinear) and normalized as (pixel - mean) / std per channel, pixels being
0-255.

The normalization comes from the flags (--input-range LO,HI or --input-mean / --input-std), else
from the model's TFLite metadata (gpucompat/image_metadata.py), else it is [0, 1] (pixel / 255);
the description every command prints says which. A quantized input gets the normalized values
quantized with its scale and zero point; without flags or metadata it gets the pixels themselves
(uint8) or the pixels - 128 (int8), as TFLite's image task libraries feed them.

Pillow decodes the images; it is imported only when a directory is read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from gpucompat.errors import GpucompatError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
MODES = {1: "L", 3: "RGB", 4: "RGBA"}  # Pillow's mode for each channel count
IMAGE_DTYPES = ("FLOAT32", "UINT8", "INT8")


@dataclass(frozen=True)
class Normalization:
    """(pixel - mean) / std per channel (one value stands for every channel), and where it came from."""

    mean: tuple[float, ...]
    std: tuple[float, ...]
    source: str

    def describe(self) -> str:
        """How the pixels become values, as the output says it."""
        return f"(pixel - {_listed(self.mean)}) / {_listed(self.std)} ({self.source})"


DEFAULT = Normalization((0.0,), (255.0,), "default [0, 1]: no --input-range / --input-mean and no model metadata")


def normalization_from_flags(mean: str | None, std: str | None, value_range: str | None,
                             inputs: str | None) -> Normalization | None:
    """The normalization the command-line flags ask for (None without any): --input-range LO,HI
    maps pixels 0..255 onto LO..HI; --input-mean / --input-std (one value, or one per channel)
    give (pixel - mean) / std with mean 0 and std 1 where one is left out. They need `inputs`."""
    if (mean, std, value_range) != (None, None, None) and not inputs:
        raise GpucompatError("--input-range / --input-mean / --input-std need --inputs (a directory of images)")
    if value_range is not None:
        if mean is not None or std is not None:
            raise GpucompatError("--input-range and --input-mean / --input-std exclude each other")
        bounds = _numbers("--input-range", value_range)
        if len(bounds) != 2 or not bounds[0] < bounds[1]:
            raise GpucompatError(f"--input-range {value_range!r}: expected LO,HI with LO < HI (e.g. 0,1 or -1,1)")
        lo, hi = bounds
        return Normalization((-lo * 255.0 / (hi - lo),), (255.0 / (hi - lo),), f"--input-range {lo:g},{hi:g}")
    if mean is None and std is None:
        return None
    means = _numbers("--input-mean", mean) if mean is not None else (0.0,)
    stds = _numbers("--input-std", std) if std is not None else (1.0,)
    if not all(stds):
        raise GpucompatError(f"--input-std {std!r}: a standard deviation of 0")
    return Normalization(means, stds, "--input-mean / --input-std")


def load_images(path: str, model, chosen: Normalization | None) -> tuple[list[list[np.ndarray]], str]:
    """The samples in the image directory `path` for `model` (ir.Model), one per image, and a
    line saying how they were made (the normalization used and its source)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    t = _image_input(path, model)
    _, height, width, channels = t.shape
    norm = chosen or _from_metadata(model) or (None if t.dtype_name != "FLOAT32" else DEFAULT)
    if norm is not None:
        for flag, values in (("mean", norm.mean), ("std", norm.std)):
            if len(values) not in (1, channels):
                raise GpucompatError(f"{path}: {len(values)} {flag} values ({norm.source}) for an input of "
                                     f"{channels} channels")
    files = sorted(f for f in os.listdir(path) if f.lower().endswith(IMAGE_SUFFIXES)
                   and os.path.isfile(os.path.join(path, f)))
    if not files:
        raise GpucompatError(f"{path}: no PNG or JPEG images in the directory")
    samples = []
    for name in files:
        file = os.path.join(path, name)
        try:
            with Image.open(file) as image:  # upright as a camera's EXIF orientation says, as viewers show it
                upright = ImageOps.exif_transpose(image)
                pixels = upright.convert(MODES[channels]).resize((width, height), Image.Resampling.BILINEAR)
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as e:
            why = " ".join(str(e).split()) or type(e).__name__
            raise GpucompatError(f"{file}: not a readable image ({why})") from None
        values = np.asarray(pixels, np.float32).reshape(t.shape)
        samples.append([_as_input(values, t, norm)])
    return samples, f"{path}: {len(files)} image(s), {MODES[channels]}, resized to {width}x{height} (bilinear), " \
                    f"{_how_fed(t, norm)}"


def _image_input(path: str, model):
    """The model's one image input, or a GpucompatError saying why there is none."""
    inputs = model.graphs[0].inputs
    shapes = ", ".join(f"{list(t.shape)} {t.dtype_name}" for t in inputs)
    t = inputs[0] if len(inputs) == 1 else None
    if t is None or len(t.shape) != 4 or t.shape[0] != 1 or t.shape[3] not in MODES or min(t.shape) < 1 \
            or t.dtype_name not in IMAGE_DTYPES:
        raise GpucompatError(f"{path}: images need a model with one image input [1, H, W, 1|3|4] of float32, "
                             f"uint8 or int8 (the model's inputs: {shapes or 'none'})")
    return t


def _from_metadata(model) -> Normalization | None:
    from gpucompat.image_metadata import image_normalization

    found = image_normalization(model)
    if found is None or not all(found[1]):
        return None
    return Normalization(tuple(found[0]), tuple(found[1]), "the model's TFLite metadata")


def _as_input(pixels: np.ndarray, t, norm: Normalization | None) -> np.ndarray:
    """Pixels (0-255, float) as the values input `t` takes."""
    if norm is not None:
        pixels = (pixels - np.asarray(norm.mean, np.float32)) / np.asarray(norm.std, np.float32)
    if t.dtype_name == "FLOAT32":
        return pixels.astype(np.float32)
    dtype = np.dtype(t.dtype_name.lower())
    if norm is None:
        return (pixels - (128 if dtype == np.int8 else 0)).astype(dtype)
    scale, zero_point = _quantization(t)
    limits = np.iinfo(dtype)
    return np.clip(np.round(pixels / scale + zero_point), limits.min, limits.max).astype(dtype)


def _how_fed(t, norm: Normalization | None) -> str:
    if norm is None:
        return "the pixels fed as uint8" if t.dtype_name == "UINT8" else "the pixels - 128 fed as int8"
    if t.dtype_name == "FLOAT32":
        return norm.describe()
    scale, zero_point = _quantization(t)
    return f"{norm.describe()}, quantized with scale {scale:g} and zero point {zero_point}"


def _quantization(t) -> tuple[float, int]:
    q = t.quantization
    if q is None or q.scale is None or len(q.scale) == 0:
        return 1.0, 0
    return float(q.scale[0]), int(q.zeroPoint[0]) if q.zeroPoint is not None and len(q.zeroPoint) else 0


def _numbers(flag: str, text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise GpucompatError(f"{flag} {text!r}: expected numbers separated by commas") from None
    if not all(np.isfinite(values)):
        raise GpucompatError(f"{flag} {text!r}: expected finite numbers")
    return values


def _listed(values: tuple[float, ...]) -> str:
    return f"{values[0]:g}" if len(set(values)) == 1 else "[" + ", ".join(f"{v:g}" for v in values) + "]"
