"""Bounds on a tensor's values found from the ops alone, without data: a small interval analysis
walked back from the tensor through the ops that bound their output.

    float constant c                     [min c, max c]
    ABS, SQUARE, MUL(x, x)               |x|, x * x: never negative
    SQUARED_DIFFERENCE(a, b)             (a - b) * (a - b)
    NEG                                  [-hi, -lo]
    ADD, SUB, MUL, MINIMUM, MAXIMUM      interval arithmetic on both operands (a constant's too)
    RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1   clamped: RELU6 to [0, 6]
    LOGISTIC [0, 1], TANH [-1, 1]
    RESHAPE, EXPAND_DIMS, SQUEEZE, TRANSPOSE, SLICE, STRIDED_SLICE   the input's bounds
    DEQUANTIZE of an fp16 constant       the constant's (TF's fp16 weights)
    CONCATENATION                        the union of its inputs' bounds

and a fused activation (RELU, RELU6, RELU_N1_TO_1, TANH in the options' fusedActivationFunction)
bounds any single-output op's result, whatever the op. Anything else is unbounded: a model input,
another op, a quantized or non-float constant, a tensor more than MAX_DEPTH ops back. Each tensor
is bounded once per `Bounds` (a real model's thousands of ops cost one visit each at most).

PREC407 asks it whether an EXP's input can pass ln(65504). IR only: `gpucompat check` imports this.
"""

from __future__ import annotations

import math

import numpy as np

from gpucompat.ir import Op, Tensor

Interval = tuple[float, float]  # (lowest, highest); -inf / inf where unbounded

UNBOUNDED: Interval = (-math.inf, math.inf)
MAX_DEPTH = 32  # ops walked back from the tensor asked about; past it a tensor is unbounded

CLAMPS: dict[str, Interval] = {"RELU": (0.0, math.inf), "RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0),
                               "RELU_0_TO_1": (0.0, 1.0)}
SQUASHES: dict[str, Interval] = {"LOGISTIC": (0.0, 1.0), "TANH": (-1.0, 1.0)}
FUSED = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH"}  # schema ActivationFunctionType
KEEPS = ("RESHAPE", "EXPAND_DIMS", "SQUEEZE", "TRANSPOSE", "SLICE", "STRIDED_SLICE",
         "DEQUANTIZE")  # of an fp16 constant: its values; of anything quantized: unbounded (its input is)


class Bounds:
    """The intervals of one graph's tensors, each found once."""

    def __init__(self) -> None:
        self._known: dict[Tensor, Interval] = {}

    def of(self, t: Tensor, depth: int = 0) -> Interval:
        """The interval every value of `t` lies in; UNBOUNDED where nothing bounds it (a tensor
        first reached past MAX_DEPTH stays unbounded: loose, never wrong)."""
        if t not in self._known:
            if t.producer is None:
                self._known[t] = constant_bounds(t)
            else:
                self._known[t] = UNBOUNDED if depth >= MAX_DEPTH else self._produced(t.producer, depth + 1)
        return self._known[t]

    def _produced(self, op: Op, depth: int) -> Interval:
        """The interval of a single-output op's result: its own, then its fused activation's."""
        if len(op.outputs) != 1 or not op.present_inputs:
            return UNBOUNDED
        own = self._computed(op, op.present_inputs, depth)
        act = FUSED.get(getattr(op.options, "fusedActivationFunction", 0) or 0)
        return own if act is None else activated(act, own)

    def _computed(self, op: Op, ins: list[Tensor], depth: int) -> Interval:
        """What `op` bounds its output to, before its fused activation."""
        if op.name in CLAMPS or op.name in SQUASHES:
            return activated(op.name, self.of(ins[0], depth))
        if op.name in KEEPS:
            return self.of(ins[0], depth)
        if op.name in UNARY:
            return UNARY[op.name](self.of(ins[0], depth))
        if op.name == "CONCATENATION":
            spans = [self.of(x, depth) for x in ins]
            return min(s[0] for s in spans), max(s[1] for s in spans)
        if op.name == "MUL" and len(ins) == 2 and ins[0] is ins[1]:
            return square(self.of(ins[0], depth))
        if op.name in BINARY and len(ins) == 2:
            return BINARY[op.name](self.of(ins[0], depth), self.of(ins[1], depth))
        return UNBOUNDED


def constant_bounds(t: Tensor) -> Interval:
    """[min, max] of a finite float constant that is not quantized; UNBOUNDED for anything else."""
    data = t.data()
    if data is None or data.dtype.kind != "f" or not data.size or t.quantization is not None:
        return UNBOUNDED
    lo, hi = float(np.min(data)), float(np.max(data))
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else UNBOUNDED


def activated(name: str, x: Interval) -> Interval:
    """The interval of activation `name` (a CLAMPS or SQUASHES op) applied to values in `x`."""
    if name in SQUASHES:
        return SQUASHES[name]
    lo, hi = CLAMPS[name]
    return min(max(x[0], lo), hi), min(max(x[1], lo), hi)


def magnitude(x: Interval) -> Interval:
    """The interval of |v| for v in `x`."""
    lo, hi = x
    if lo >= 0:
        return x
    if hi <= 0:
        return -hi, -lo
    return 0.0, max(-lo, hi)


def square(x: Interval) -> Interval:
    """The interval of v * v for v in `x`."""
    lo, hi = magnitude(x)
    return lo * lo, hi * hi


def difference(a: Interval, b: Interval) -> Interval:
    """The interval of u - v for u in `a`, v in `b`."""
    return a[0] - b[1], a[1] - b[0]


def product(a: Interval, b: Interval) -> Interval:
    """The interval of u * v for u in `a`, v in `b` (0 times an unbounded end is 0)."""
    ends = [u * v if u and v else 0.0 for u in a for v in b]
    return min(ends), max(ends)


UNARY = {"ABS": magnitude, "SQUARE": square, "NEG": lambda x: (-x[1], -x[0])}
BINARY = {
    "ADD": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "SUB": difference,
    "MUL": product,
    "MINIMUM": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
    "MAXIMUM": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    "SQUARED_DIFFERENCE": lambda a, b: square(difference(a, b)),
}
