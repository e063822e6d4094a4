"""verify's allocation cap: what a run would allocate, worked out from the declared shapes before
anything is allocated, so a model whose shapes claim gigabytes is refused in one line instead of
running for minutes and exhausting the machine (docs/robustness.md, resource bounds).

The estimate counts, in Python integers (no overflow whatever the shapes claim):
- the reference interpreter's tensors: every tensor of the model compared against (the model
  itself, or the --against original), at its element size;
- the hybrid's CPU parts: every tensor a CPU-placed op reads or writes, again at its element size
  (those parts run on interpreters of their own);
- the executor's storage: every tensor a GPU-placed op reads or writes, in PHWC4 slices of 4
  channels (gpucompat/layout.py, after tensor_desc.cc GetSizeInBytesForShape) at the precision's
  storage size, counted twice because each buffer is filled from a host array of the same size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes
from gpucompat.layout import padded_elements

DEFAULT_MAX_MEMORY = "2G"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_STORAGE_BYTES = {"fp32": 4, "fp16": 2}


def parse_size(text: str) -> int:
    """Bytes from a size such as 2G, 512M, 100K or 1048576 (binary units, an optional trailing B)."""
    spec = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = spec[-1:] if spec[-1:] in _UNITS else ""
    try:
        value = float(spec[: len(spec) - len(unit)])
    except ValueError:
        raise GpucompatError(f"--max-memory {text!r}: expected a size such as 2G, 512M or 1048576") from None
    if not math.isfinite(value) or value <= 0:
        raise GpucompatError(f"--max-memory {text!r}: must be a positive size")
    return int(value * _UNITS[unit])


def human(n: int) -> str:
    """A byte count for a message: 4.0 GiB, 512.0 MiB, 12 B."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        size = _UNITS[unit[0]]
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def tensor_bytes(t: ir.Tensor) -> int:
    """Bytes of a tensor as the reference interpreter stores it (negative dimensions count as 0)."""
    return math.prod(max(d, 0) for d in t.shape) * dtypes.itemsize(t.dtype)


def storage_bytes(t: ir.Tensor, precision: str) -> int:
    """Bytes of a tensor in the executor's PHWC4 storage (plain elements when the delegate cannot
    map its rank)."""
    counts = padded_elements(t)
    elements = counts[1] if counts else math.prod(max(d, 0) for d in t.shape)
    return elements * _STORAGE_BYTES[precision]


@dataclass(frozen=True)
class Estimate:
    """Bytes a verify run would allocate, by consumer."""

    reference: int
    cpu_parts: int
    executor: int

    @property
    def total(self) -> int:
        return self.reference + self.cpu_parts + self.executor


def _touched(model: ir.Model, where: dict[int, list[str]], placement: str) -> list[ir.Tensor]:
    """Every tensor, once, that an op with `placement` reads or writes, over all subgraphs."""
    seen: dict[int, ir.Tensor] = {}
    for index, graph in enumerate(model.graphs):
        for op, place in zip(graph.ops, where.get(index, [])):
            if place == placement:
                for t in (*op.inputs, *op.outputs):
                    if t is not None:
                        seen[id(t)] = t
    return list(seen.values())


def estimate(model: ir.Model, where: dict[int, list[str]], precision: str,
             reference_model: ir.Model | None = None) -> Estimate:
    """What verifying `model` with these placements would allocate (`reference_model`: the
    --against original, which the reference interpreter runs instead of `model`)."""
    ref = reference_model or model
    return Estimate(
        reference=sum(tensor_bytes(t) for g in ref.graphs for t in g.tensors),
        cpu_parts=sum(tensor_bytes(t) for t in _touched(model, where, "cpu")),
        executor=2 * sum(storage_bytes(t, precision) for t in _touched(model, where, "gpu")),
    )


def enforce(path: str, need: Estimate, cap: int) -> None:
    """Refuse, in one line, a run that would allocate more than `cap` bytes."""
    if need.total > cap:
        raise GpucompatError(
            f"{path}: verify would allocate {human(need.total)} for its tensors (reference interpreter "
            f"{human(need.reference)}, CPU parts {human(need.cpu_parts)}, executor {human(need.executor)}), "
            f"over the --max-memory cap of {human(cap)}")
