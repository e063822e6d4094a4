"""The verification package's seeded random inputs, as inference_diff draws them (the user's own
samples, `--inputs data.npz`, are read by gpucompat/npz_inputs.py, which `check` shares).

N(0, 1) floats; 8- and 16-bit integers over their whole range (quantized inputs); wider integers in
[0, 100) (indices and sizes, non-negative); booleans 0 / 1. Runs draw in turn from one generator
seeded with the seed, so run k is the same whatever the number of runs.
"""

from __future__ import annotations

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
            raise GpucompatError(f"input tensor#{t.index} {t.name!r} has type {t.dtype_name}, "
                                 "which cannot be generated")
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
