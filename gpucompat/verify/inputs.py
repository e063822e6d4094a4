"""Seeded random inputs, as inference_diff draws them: Gaussian floats, integers and booleans in
their valid ranges."""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.ir import dtypes


def random_inputs(graph: ir.Graph, gen: np.random.Generator) -> list[np.ndarray]:
    """One value per graph input: N(0, 1) floats; 8/16-bit integers over their whole range
    (quantized inputs); wider integers in [0, 100); booleans 0 / 1."""
    values = []
    for t in graph.inputs:
        dt = dtypes.numpy_dtype(t.dtype)
        if dt is None:
            raise ValueError(f"input tensor#{t.index} {t.name!r} has type {t.dtype_name}, which cannot be generated")
        if dt.kind == "f":
            values.append(gen.standard_normal(t.shape).astype(dt))
        elif dt == np.bool_:
            values.append(gen.integers(0, 2, t.shape).astype(bool))
        elif dt.itemsize <= 2:
            info = np.iinfo(dt)
            values.append(gen.integers(info.min, int(info.max) + 1, t.shape).astype(dt))
        else:
            values.append(gen.integers(0, 100, t.shape).astype(dt))
    return values
