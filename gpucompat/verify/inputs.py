"""The one input source of the verification package: seeded random values, as inference_diff draws
them, or the user's own samples from a .npz file (`--inputs`).

Random values: N(0, 1) floats; 8- and 16-bit integers over their whole range (quantized inputs);
wider integers in [0, 100) (indices and sizes, non-negative); booleans 0 / 1. Runs draw in turn
from one generator seeded with the seed, so run k is the same whatever the number of runs.

A .npz file holds one array per model input, keyed by the input's name or its index ("0", "1",
...), the first axis counting samples: a [N, 1, 224, 224, 3] array feeds N runs of a
[1, 224, 224, 3] input. Values are cast to the input's type.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes


@dataclass(frozen=True)
class InputSpec:
    """One model input: its name, the shape it is fed at, its numpy type."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype


def specs(graph: ir.Graph, dynamic_dim: int | None = None) -> list[InputSpec]:
    """The inputs of `graph` at their stored shapes, or with dynamic (-1) dimensions fed at
    `dynamic_dim` when given."""
    out = []
    for t in graph.inputs:
        dt = dtypes.numpy_dtype(t.dtype)
        if dt is None:
            raise GpucompatError(f"input tensor#{t.index} {t.name!r} has type {t.dtype_name}, which cannot be generated")
        shape = t.shape if dynamic_dim is None else tuple(dynamic_dim if d < 0 else d for d in t.signature)
        out.append(InputSpec(t.name, tuple(shape), np.dtype(dt)))
    return out


def random_values(spec: InputSpec, gen: np.random.Generator) -> np.ndarray:
    """A random value for one input, under the module's integer-range policy."""
    dt, shape = spec.dtype, spec.shape
    if dt.kind == "f":
        return gen.standard_normal(shape).astype(dt)
    if dt == np.bool_:
        return gen.integers(0, 2, shape).astype(bool)
    if dt.itemsize <= 2:
        info = np.iinfo(dt)
        return gen.integers(info.min, int(info.max) + 1, shape).astype(dt)
    return gen.integers(0, 100, shape).astype(dt)


def seeded(inputs: list[InputSpec], seed: int = 0, runs: int = 1) -> list[list[np.ndarray]]:
    """`runs` input sets (one value per input, in input order) drawn from one generator."""
    gen = np.random.default_rng(seed)
    return [[random_values(s, gen) for s in inputs] for _ in range(runs)]


def seeded_feeds(graph: ir.Graph, seed: int = 0) -> list[np.ndarray]:
    """One seeded input set of `graph` (the first of `seeded`)."""
    return seeded(specs(graph), seed)[0]


def from_npz(path: str, inputs: list[InputSpec]) -> list[list[np.ndarray]]:
    """The samples of a .npz file as input sets; a one-line error naming the file for a missing
    or unknown input, a shape that does not fit (a -1 in a spec's shape takes any size), or sample
    counts that differ."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise GpucompatError(f"{path}: cannot read it as a .npz file of input samples: {e}") from None
    known = {s.name for s in inputs} | {str(i) for i in range(len(inputs))}
    unknown = sorted(set(arrays) - known)
    if unknown:
        raise GpucompatError(f"{path}: {unknown[0]!r} is not an input of the model (inputs: "
                             f"{', '.join(repr(s.name) for s in inputs)}, or their indices)")
    columns = []
    for i, s in enumerate(inputs):
        key = s.name if s.name in arrays else str(i)
        if key not in arrays:
            raise GpucompatError(f"{path}: no samples for input {i} {s.name!r} (key it by name or by index)")
        a = arrays[key]
        if a.ndim != len(s.shape) + 1 or any(want >= 0 and got != want for got, want in zip(a.shape[1:], s.shape)):
            want = ", ".join("any" if d < 0 else str(d) for d in s.shape)
            raise GpucompatError(f"{path}: {key!r} has shape {tuple(a.shape)}, expected [samples, {want}] "
                                 f"for input {s.name!r}")
        if a.dtype.kind not in "biuf":
            raise GpucompatError(f"{path}: {key!r} holds {a.dtype}, not numbers")
        columns.append(a.astype(s.dtype))
    counts = {len(c) for c in columns}
    if len(counts) > 1:
        raise GpucompatError(f"{path}: the inputs have different numbers of samples ({sorted(counts)})")
    if 0 in counts:
        raise GpucompatError(f"{path}: holds no samples")
    return [[c[k] for c in columns] for k in range(len(columns[0]) if columns else 1)]
