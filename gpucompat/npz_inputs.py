"""Representative inputs from a .npz file (`--inputs data.npz`): one array per model input, keyed by
the input's name or its position among the inputs ("0", "1", ..., or numpy's own "arr_0" from
`np.savez(path, a, b)`), the first axis counting samples. An input whose first dimension is 1 also
takes an array of its own rank with any first dimension: each row is one sample.

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
    shape = tuple(t.shape)
    if a.ndim == len(shape) and shape and shape[0] == 1 and a.shape[1:] == shape[1:]:
        a = a.reshape((a.shape[0], *shape))
    if a.ndim != len(shape) + 1 or a.shape[1:] != shape:
        raise GpucompatError(f"{path}: {keys[0]!r} has shape {a.shape}, input {t.name!r} needs "
                             f"(samples, {', '.join(map(str, shape))})")
    want = dtypes.numpy_dtype(t.dtype)
    if want is None or not np.can_cast(a.dtype, want, "same_kind"):
        raise GpucompatError(f"{path}: {keys[0]!r} holds {a.dtype}, input {t.name!r} is {t.dtype_name}")
    return a.astype(want)
