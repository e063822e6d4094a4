"""The verification package's seeded random inputs, as inference_diff draws them (the user's own
samples, `--inputs data.npz`, are read by gpucompat/npz_inputs.py, which `check` shares).

N(0, 1) floats; 8- and 16-bit integers over their whole range (quantized inputs); wider integers in
[0, 100) (indices and sizes, non-negative); booleans 0 / 1. An integer input the graph uses as
indices is drawn below the bound those indices must respect (index_bound: token ids below an
embedding table's rows, positions below a cache's length); one whose first value starts a KV-cache
write (run_start_bound: an LLM's positions) is a run of consecutive values, as a prefill feeds them
(random positions make rows of an attention mask that hide every key). Runs draw in turn from one
generator seeded with the seed, so run k is the same whatever the number of runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes


@dataclass(frozen=True)
class InputSpec:
    """One model input: its name, the shape it is fed at, its numpy type, and for integer indices
    the bound they must stay below (None: no use of them bounds them)."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    below: int | None = None
    run: int | None = None  # positions: a run of consecutive values starting below this (run_start_bound)


PASS_THROUGH = ("RESHAPE", "SQUEEZE", "EXPAND_DIMS", "CAST", "IDENTITY")  # ops that keep an index an index
SELECTS = ("SELECT", "SELECT_V2")  # a value operand (litert-torch wraps a negative position: pos < 0 ? pos + n : pos)


def index_bound(t: ir.Tensor) -> int | None:
    """The smallest bound the graph's uses of `t` as indices put on its values (through RESHAPE,
    CAST and the like, and a SELECT's value operands): GATHER's indices below the gathered axis,
    EMBEDDING_LOOKUP's ids below the table's rows, GATHER_ND's below the indexed axes, ONE_HOT's
    below its depth, DYNAMIC_UPDATE_SLICE's start so the update fits; None when no use bounds it."""
    bounds = []
    for op in t.consumers:
        slot = next(i for i, x in enumerate(op.inputs) if x is t)
        if (op.name in PASS_THROUGH and slot == 0) or (op.name in SELECTS and slot > 0):
            bounds += [b for out in op.outputs if (b := index_bound(out)) is not None]
        elif op.name == "GATHER" and slot == 1:
            params = op.input(0)
            axis = getattr(op.options, "axis", 0) or 0
            bounds.append(params.shape[axis % params.rank] if params.rank else None)
        elif op.name == "EMBEDDING_LOOKUP" and slot == 0:
            bounds.append(op.input(1).shape[0])
        elif op.name == "GATHER_ND" and slot == 1 and t.rank:
            bounds.append(min(op.input(0).shape[:t.shape[-1]], default=None))
        elif op.name == "ONE_HOT" and slot == 0:
            depth = op.input(1).data() if op.input(1) is not None else None
            bounds.append(int(np.ravel(depth)[0]) if depth is not None else None)
        elif op.name == "DYNAMIC_UPDATE_SLICE" and slot == 2:
            operand, update = op.input(0), op.input(1)
            bounds.append(min((a - b + 1 for a, b in zip(operand.shape, update.shape)), default=None))
    found = [b for b in bounds if b is not None and b > 0]
    return min(found) if found else None


def run_start_bound(t: ir.Tensor) -> int | None:
    """When `t` holds token positions: their first value becomes the start of a KV-cache write
    (litert-torch: SLICE of the first position, RESHAPE to a scalar, PACK or CONCATENATION into
    the start indices of DYNAMIC_UPDATE_SLICE, CASTs on the way), so the positions are a run of
    consecutive values whose start lets the update fit; the bound that start stays below, None
    when `t` does not reach one."""
    bounds = [_start_bound(op.outputs[0], element=0) for op in t.consumers
              if op.name == "SLICE" and op.input(0) is t and _first_element(op)]
    bounds += [run_start_bound(op.outputs[0]) for op in t.consumers if op.name in PASS_THROUGH and op.input(0) is t]
    if t.num_elements == 1:  # a decode step's one position is the start itself
        bounds.append(_start_bound(t, element=0))
    found = [b for b in bounds if b is not None and b > 0]
    return min(found) if found else None


def _first_element(op: ir.Op) -> bool:
    """A SLICE that takes the first element of a vector."""
    begin = op.input(1).data() if op.input(1) is not None else None
    return begin is not None and not np.any(begin) and op.outputs[0].num_elements == 1


def _start_bound(t: ir.Tensor, element: int) -> int | None:
    """The bound on the value of `t` (one element of a start vector, `element` once PACKed) where it
    reaches DYNAMIC_UPDATE_SLICE's start indices."""
    bounds = []
    for op in t.consumers:
        slot = next(i for i, x in enumerate(op.inputs) if x is t)
        if op.name in PASS_THROUGH and slot == 0:
            bounds.append(_start_bound(op.outputs[0], element))
        elif op.name == "PACK":
            bounds.append(_start_bound(op.outputs[0], slot))
        elif op.name == "CONCATENATION" and op.outputs[0].rank == 1:  # pieces of a start vector
            bounds.append(_start_bound(op.outputs[0], element + sum(x.shape[0] for x in op.inputs[:slot])))
        elif op.name == "DYNAMIC_UPDATE_SLICE" and slot == 2 and element < op.input(0).rank:
            bounds.append(op.input(0).shape[element] - op.input(1).shape[element] + 1)
    found = [b for b in bounds if b is not None and b > 0]
    return min(found) if found else None


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
        integer = np.dtype(dt).kind in "iu"
        below = index_bound(t) if integer else None
        out.append(InputSpec(t.name, tuple(shape), np.dtype(dt), below, run_start_bound(t) if integer else None))
    return out


def random_values(spec: InputSpec, gen: np.random.Generator) -> np.ndarray:
    """A random value for one input, under the module's integer-range policy."""
    dt, shape = spec.dtype, spec.shape
    if dt.kind == "f":
        return gen.standard_normal(shape).astype(dt)
    if dt == np.bool_:
        return gen.integers(0, 2, shape).astype(bool)
    if spec.run is not None:  # positions: consecutive from a start that keeps every one in bounds
        count = int(np.prod(shape, dtype=np.int64))
        last = min(spec.run, (spec.below or spec.run + count) - count + 1)
        return (gen.integers(0, max(last, 1)) + np.arange(count)).reshape(shape).astype(dt)
    if spec.below is not None:
        return gen.integers(0, spec.below, shape).astype(dt)
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
