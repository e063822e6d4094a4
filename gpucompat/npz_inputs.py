"""Representative inputs from a .npz file (`--inputs data.npz`): one array per model input, keyed by
the input's name or its position among the inputs ("0", "1", ..., or numpy's own "arr_0" from
`np.savez(path, a, b)`), the first axis counting samples. A sample may have any shape the input's
signature allows (a -1 dimension takes any size: a model stored at a placeholder [1, 1] whose
signature is [-1, -1] takes audio of 1760 samples as [1, 1760]). An input whose first dimension
is 1 also takes an array of its own rank with any first dimension: each row is one sample.

Self-contained (numpy and the IR's tensors only) so every command reading inputs shares it.
"""

from __future__ import annotations

import zipfile

import numpy as np

from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes


def load_samples(path: str, inputs: list) -> list[list[np.ndarray]]:
    """The samples in `path` for a graph whose inputs are `inputs` (ir.Tensor, in order): one list
    of input values per sample, each of the input's shape and dtype. A one-line GpucompatError
    naming the file and what does not fit."""
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise GpucompatError(f"{path}: a single array (.npy), not a .npz of arrays keyed by input")
        with loaded:
            arrays = {key: loaded[key] for key in loaded.files}
    except FileNotFoundError:
        raise GpucompatError(f"{path}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        why = " ".join(str(e).split()) or type(e).__name__
        raise GpucompatError(f"{path}: not a readable .npz file ({why})") from None
    if not arrays:
        raise GpucompatError(f"{path}: holds no arrays")
    per_input = [_array_for(path, i, t, arrays) for i, t in enumerate(inputs)]
    if arrays:
        raise GpucompatError(f"{path}: no model input is named {', '.join(sorted(arrays))} "
                             f"(inputs: {', '.join(t.name for t in inputs)})")
    counts = {len(a) for a in per_input}
    if len(counts) > 1:
        raise GpucompatError(f"{path}: the inputs have different numbers of samples ({sorted(counts)})")
    if not counts or 0 in counts:
        raise GpucompatError(f"{path}: holds no samples")
    return [[a[s] for a in per_input] for s in range(counts.pop())]


def _array_for(path: str, position: int, t, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """Input `t`'s samples [N, *t.shape], taken out of `arrays`."""
    keys = [k for k in (t.name, str(position), f"arr_{position}") if k in arrays]
    if not keys:
        raise GpucompatError(f"{path}: no array for input {position} {t.name!r} (keys: {', '.join(arrays)})")
    if len(keys) > 1:
        raise GpucompatError(f"{path}: input {position} {t.name!r} is given twice ({', '.join(keys)})")
    a = arrays.pop(keys[0])
    allowed = _allowed(t)
    if a.ndim == len(allowed) and allowed and allowed[0] in (1, -1) and _fits(a.shape[1:], allowed[1:]):
        a = a.reshape((a.shape[0], 1, *a.shape[1:]))
    if a.ndim != len(allowed) + 1 or not _fits(a.shape[1:], allowed):
        raise GpucompatError(f"{path}: {keys[0]!r} has shape {a.shape}, input {t.name!r} needs "
                             f"(samples, {', '.join('any' if d < 0 else str(d) for d in allowed)})")
    want = dtypes.numpy_dtype(t.dtype)
    if want is None or not np.can_cast(a.dtype, want, "same_kind"):
        raise GpucompatError(f"{path}: {keys[0]!r} holds {a.dtype}, input {t.name!r} is {t.dtype_name}")
    return a.astype(want)


def fits(shape: tuple[int, ...], t) -> bool:
    """True when a value of `shape` fits input `t` (ir.Tensor): its signature, -1 taking any size."""
    return _fits(tuple(shape), _allowed(t))


def _allowed(t) -> tuple[int, ...]:
    """The shapes input `t` takes: its shape signature (-1: any size) where it has one of its
    stored rank, else its stored shape."""
    sig = tuple(t.signature)
    return sig if len(sig) == len(t.shape) else tuple(t.shape)


def _fits(shape: tuple[int, ...], allowed: tuple[int, ...]) -> bool:
    """True when `shape` is one of the shapes `allowed` (-1: any positive size) describes."""
    return len(shape) == len(allowed) and all(n == d or (d < 0 and n > 0) for n, d in zip(shape, allowed))
