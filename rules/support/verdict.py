"""A verdict on one op: accepted, or rejected with a reason and the layer that rejects it.

Layers (how the runtime reacts, and so how we report it):
  partition  IsSupported / tensor-type checks fail: the op stays on the CPU, the graph is split.
  parse      accepted at partitioning, fails when the GPU graph is built: the whole delegation
             fails and every op of the model runs on the CPU.
  backend    the chosen backend (cl / gl / metal) has no kernel: the kernel build fails, which
             also aborts the delegation.
  gate       a subgraph-wide condition (dynamic tensors) stops all delegation in that subgraph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Layer = Literal["partition", "parse", "backend", "gate"]
LAYERS: tuple[str, ...] = ("partition", "parse", "backend", "gate")


@dataclass(frozen=True)
class Verdict:
    """ok, or why not: `reason` in words, `runtime_message` as the runtime prints it."""

    ok: bool
    reason: str = ""
    layer: Layer = "partition"
    runtime_message: str | None = None

    def __bool__(self) -> bool:
        return self.ok


ACCEPT = Verdict(True)


def reject(reason: str, layer: Layer = "partition", runtime_message: str | None = None) -> Verdict:
    """A rejection; `runtime_message` defaults to the reason."""
    return Verdict(False, reason, layer, runtime_message if runtime_message is not None else reason)


def first_failure(*verdicts: Verdict) -> Verdict:
    """The first rejection among `verdicts`, else ACCEPT (checks run in the runtime's order)."""
    for v in verdicts:
        if not v.ok:
            return v
    return ACCEPT
