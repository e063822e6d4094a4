"""The value-range pass: run the reference interpreter over representative inputs, keeping every
intermediate tensor (`experimental_preserve_all_tensors`, builtin kernels so no delegate hides
them), and record each float tensor's min, max and max|x| over all samples: what fp16's range
(65504 at the top, 6e-8 at the bottom) is judged against.

For SUM and MEAN the pass also records the accumulation: the largest sum of |x| over the reduced
axes, which bounds every partial sum a GPU reduction keeps. Main subgraph only (the interpreter
does not expose the tensors of the subgraphs WHILE / IF call).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpucompat.fp16_patterns import SUMMING_OPS


@dataclass
class TensorRange:
    """What one tensor held over the samples."""

    minimum: float
    maximum: float
    absmax: float
    accumulated: float | None = None  # SUM / MEAN outputs: the largest sum of |x| reduced into one value

    def fold(self, other: TensorRange) -> None:
        """Widen this range by another sample's."""
        self.minimum = min(self.minimum, other.minimum)
        self.maximum = max(self.maximum, other.maximum)
        self.absmax = max(self.absmax, other.absmax)
        if other.accumulated is not None:
            self.accumulated = max(self.accumulated or 0.0, other.accumulated)


def observe(model, model_bytes: bytes, what: str, samples: list[list[np.ndarray]]) -> dict[int, TensorRange]:
    """Tensor index (main subgraph) -> its range over `samples` (lists of input values in input
    order), for every float tensor an op writes or the model takes as input."""
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    graph = model.graphs[0]
    watched = [t for t in graph.tensors if _is_float(t) and (t.producer is not None or t in graph.inputs)]
    it = reference_interpreter(model_bytes, what, preserve=True, xnnpack=False,
                               input_shapes=[np.shape(f) for f in samples[0]] if samples else None)
    ranges: dict[int, TensorRange] = {}
    for feeds in samples:
        run_reference(it, feeds, what)
        for t in watched:
            value = np.asarray(it.get_tensor(t.index), np.float64)
            if value.size == 0:
                continue
            seen = TensorRange(float(value.min()), float(value.max()), float(np.abs(value).max()),
                               _accumulated(t, it))
            if t.index in ranges:
                ranges[t.index].fold(seen)
            else:
                ranges[t.index] = seen
    return ranges


def _is_float(t) -> bool:
    return t.dtype_name in ("FLOAT32", "FLOAT16")


def _accumulated(t, it) -> float | None:
    """For the output of SUM / MEAN: the largest sum of |x| over the reduced axes."""
    op = t.producer
    if op is None or op.name not in SUMMING_OPS or len(op.inputs) < 2 or op.inputs[1].data() is None:
        return None
    x = np.abs(np.asarray(it.get_tensor(op.inputs[0].index), np.float64))
    axes = tuple(sorted({int(a) % x.ndim for a in np.ravel(op.inputs[1].data())})) if x.ndim else ()
    return float(np.sum(x, axis=axes).max()) if x.size else None
