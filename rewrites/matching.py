"""Small questions patterns ask about the graph: who reads a tensor, what a constant holds."""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, Tensor, opcodes

B = opcodes.BUILTIN


def of_type(graph, *names: str) -> list[Op]:
    """Ops of the given builtin types, in plan order."""
    codes = {B[n] for n in names}
    return [op for op in graph.ops if op.builtin in codes]


def sole_reader(t: Tensor) -> Op | None:
    """The only op reading `t`, or None when it has several readers, none, or is a graph output
    (then another reader outside the graph sees it too)."""
    if t.graph.is_graph_output(t) or len(t.consumers) != 1:
        return None
    op = t.consumers[0]
    return op if sum(1 for x in op.present_inputs if x is t) == 1 else None


def int_values(t: Tensor | None) -> np.ndarray | None:
    """The integer values of a constant tensor, None when absent, not constant or not integer."""
    if t is None:
        return None
    v = t.data()
    if v is None or v.dtype.kind not in "iu":
        return None
    return v.astype(np.int64)


def is_channel_constant(t: Tensor, channels: int) -> bool:
    """True for a constant that broadcasts per channel: a scalar, or all dims 1 but the last,
    which is 1 or `channels`."""
    if not t.is_constant:
        return False
    shape = t.shape
    return all(d == 1 for d in shape[:-1]) and (not shape or shape[-1] in (1, channels))


def other_input(op: Op, t: Tensor) -> Tensor | None:
    """The input of a two-input op that is not `t`."""
    rest = [x for x in op.present_inputs if x is not t]
    return rest[0] if len(rest) == 1 else None
