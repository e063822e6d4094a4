"""Attention masks filled with -inf: where a constant holding -inf reaches a SOFTMAX.

LiteRT's GPU accelerator (2.3.0) computes a SOFTMAX row as NaN when the row's first four elements
(its first 4-channel slice) are all -inf, which a causal or sliding-window mask writes for every
query past the window (measured: [1, 1, 32, 64] with columns 0-3 at -inf gives 32 NaN rows, at fp32
and fp16; a finite fill, or -inf anywhere past the first slice, is right). The CPU never sees an
infinity there: its ADD clamps to the float range. A mask is built from a constant fill through
elementwise and data-movement ops, which this follows back from the SOFTMAX's input.
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, Tensor

# ops a mask's values pass through unchanged or combined (the value operands of a SELECT)
CARRIERS = {"ADD", "SUB", "MINIMUM", "MAXIMUM", "SELECT", "SELECT_V2", "RESHAPE", "TRANSPOSE", "BROADCAST_TO",
            "TILE", "CONCATENATION", "SLICE", "STRIDED_SLICE", "GATHER", "EXPAND_DIMS", "SQUEEZE", "DEQUANTIZE",
            "CAST", "PACK"}
DEPTH = 16  # ops followed back from the SOFTMAX: a mask is built a few ops before it


def negative_infinity(t: Tensor) -> bool:
    """A float constant holding -inf."""
    if not t.is_constant:
        return False
    value = t.data()
    return value is not None and value.dtype.kind == "f" and bool(np.isneginf(value).any())


def infinite_fills(softmax: Op) -> list[tuple[Tensor, Op]]:
    """The constants holding -inf that reach `softmax`'s input through CARRIERS (at most DEPTH
    ops back), each with the op on that path that reads it; empty when none does."""
    found: list[tuple[Tensor, Op]] = []
    seen: set[int] = set()
    todo = [(softmax.input(0), softmax, 0)]
    while todo:
        t, reader, depth = todo.pop()
        if t is None or (id(t), id(reader)) in seen:
            continue
        seen.add((id(t), id(reader)))
        if negative_infinity(t):
            found.append((t, reader))
            continue
        op = t.producer
        if op is None or op.name not in CARRIERS or depth >= DEPTH:
            continue
        values = op.inputs[1:] if op.name in ("SELECT", "SELECT_V2") else op.inputs
        todo.extend((x, op, depth + 1) for x in values if x is not None)
    return found
