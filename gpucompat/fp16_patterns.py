"""Graph patterns whose values leave fp16's range (65504) at the GPU's default precision, found
from the ops alone: sums of squares of unscaled values (variance, LayerNorm) and EXP without
max-subtraction whose input the ops do not keep below ln(65504) (gpucompat/static_bounds.py).
The precision rules flag them without data; `fp16-safe-layernorm` rewrites the LayerNorm that
TensorFlow's converter writes for keras.layers.LayerNormalization:

    mean = MEAN(x, [-1], keep)    var = MEAN(SQUARED_DIFFERENCE(x, mean), [-1], keep)
    r = RSQRT(ADD(var, eps))      (then x * r * gamma + (beta - mean * r * gamma), as it likes)

and the one litert-torch (0.10.0) writes for torch.nn.LayerNorm, on x reshaped to [1, rows, C]:

    m = MEAN(x, [0, 2])  [rows]   var = MEAN(SQUARED_DIFFERENCE(x, RESHAPE(m, [1, rows, 1])), [0, 2])
    r = RSQRT(ADD(var, eps))  [rows]

IR only: `gpucompat check` imports this.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpucompat.ir import Op, Tensor
from gpucompat.static_bounds import Bounds

SQUARE_OPS = ("SQUARED_DIFFERENCE", "SQUARE", "MUL", "POW")
SUMMING_OPS = ("MEAN", "SUM")
SCALE_SEARCH_DEPTH = 4  # ops walked back from a divisor looking for the REDUCE_MAX of a scaled form


@dataclass
class SumOfSquares:
    """A MEAN / SUM over the squares an op computes."""

    square: Op
    total: Op


@dataclass
class LayerNorm:
    """The converter's LayerNorm over the last axis, up to the RSQRT (what overflows in fp16)."""

    x: Tensor
    mean: Op
    square: Op
    variance: Op
    add_eps: Op
    rsqrt: Op
    epsilon: float

    @property
    def ops(self) -> list[Op]:
        """The ops of the pattern in plan order."""
        return [self.mean, self.square, self.variance, self.add_eps, self.rsqrt]


def squared_input(op: Op) -> Tensor | None:
    """The runtime tensor `op` squares: SQUARE(x), MUL(x, x), POW(x, 2), or the first operand of
    SQUARED_DIFFERENCE; None for any other op."""
    ins = op.present_inputs
    if op.name == "SQUARE" or (op.name == "SQUARED_DIFFERENCE" and len(ins) == 2):
        return ins[0]
    if op.name == "MUL" and len(ins) == 2 and ins[0] is ins[1]:
        return ins[0]
    if op.name == "POW" and len(ins) == 2:
        exponent = ins[1].data()
        if exponent is not None and exponent.size == 1 and float(exponent.ravel()[0]) == 2.0:
            return ins[0]
    return None


def is_scaled(t: Tensor) -> bool:
    """True when `t` is a value divided (or multiplied) by something derived from a REDUCE_MAX:
    the scaled domain S = max(max|x| / 8, 1), x / S that keeps squares within fp16."""
    op = t.producer
    if op is None or op.name not in ("DIV", "MUL"):
        return False
    return any(_from_reduce_max(x, SCALE_SEARCH_DEPTH) for x in op.present_inputs[1:] if x is not t)


def _from_reduce_max(t: Tensor, depth: int) -> bool:
    op = t.producer
    if op is None or depth == 0:
        return False
    return op.name == "REDUCE_MAX" or any(_from_reduce_max(x, depth - 1) for x in op.present_inputs)


def unscaled_sums_of_squares(graph) -> list[SumOfSquares]:
    """MEAN / SUM ops reading the squares of values not in a scaled domain (for
    SQUARED_DIFFERENCE(a, b), neither a nor b scaled)."""
    out = []
    for op in graph.ops:
        if op.name not in SQUARE_OPS:
            continue
        x = squared_input(op)
        if x is None or x.is_constant or any(is_scaled(t) for t in op.present_inputs):
            continue
        for reader in op.outputs[0].consumers:
            if reader.name in SUMMING_OPS and reader.present_inputs[0] is op.outputs[0]:
                out.append(SumOfSquares(op, reader))
    return out


@dataclass
class UnguardedExp:
    """An EXP whose input is not x - max(x) and whose bound (`upper`, inf when nothing bounds it)
    passes `limit`, where exp overflows fp16: ln(65504), or ln(65504 / N) where a SUM / MEAN of
    its output adds up N of them (`summed`)."""

    exp: Op
    upper: float
    limit: float
    summed: int


def unguarded_exps(graph, largest: float) -> list[UnguardedExp]:
    """EXP ops that may pass `largest` (fp16's 65504): their input is not x - max(x) (SUB(z, m) or
    ADD(z, NEG(m)), m a REDUCE_MAX of z, kept or reshaped back to z's rank), and what bounds it from
    the ops alone (static_bounds: clamps, squares, negations, constants) lets it pass ln(largest / N),
    N the most elements a SUM / MEAN of the EXP's output adds up (1 without one)."""
    bounds = Bounds()
    out = []
    for op in graph.ops:
        if op.name != "EXP" or _max_subtracted(op.present_inputs[0]):
            continue
        summed = max([_summed(reader) for reader in op.outputs[0].consumers
                      if reader.name in SUMMING_OPS and reader.present_inputs[0] is op.outputs[0]], default=1)
        upper, limit = bounds.of(op.present_inputs[0])[1], math.log(largest / summed)
        if upper > limit:
            out.append(UnguardedExp(op, upper, limit, summed))
    return out


def _summed(op: Op) -> int:
    """How many elements (at least 1) a SUM / MEAN adds into each output: all its input's when
    its axes are not a constant."""
    x = op.present_inputs[0]
    axes = reduced_axes(op)
    return max(1, x.num_elements if axes is None else math.prod(max(x.shape[a], 0) for a in axes))


def reduced_axes(op: Op) -> set[int] | None:
    """The axes of its input a reducer (MEAN, SUM, REDUCE_MAX...) reduces, counted from 0; None
    when its axes are not a constant."""
    ins = op.present_inputs
    axes = ins[1].data() if len(ins) > 1 else None
    if axes is None or not ins[0].shape:
        return None
    return {int(a) % len(ins[0].shape) for a in axes.ravel()}


def _max_subtracted(t: Tensor) -> bool:
    op = t.producer
    if op is None or len(op.present_inputs) != 2:
        return False
    z, m = op.present_inputs
    if op.name == "ADD" and m.producer is not None and m.producer.name == "NEG":
        m = m.producer.present_inputs[0]
    elif op.name != "SUB":
        return False
    return _max_of(m, z)


def _max_of(m: Tensor, z: Tensor) -> bool:
    """True when `m` holds REDUCE_MAX(z): as the reducer writes it, or with its axes dropped
    (keepDims false) and put back as 1s by a RESHAPE / EXPAND_DIMS, so that it broadcasts against z."""
    op = m.producer
    if op is not None and op.name in ("RESHAPE", "EXPAND_DIMS") and op.present_inputs[0].producer is not None:
        top = op.present_inputs[0].producer
        axes = reduced_axes(top) if top.name == "REDUCE_MAX" and top.present_inputs[0] is z else None
        return axes is not None and m.shape == tuple(1 if a in axes else d for a, d in enumerate(z.shape))
    return op is not None and op.name == "REDUCE_MAX" and op.present_inputs[0] is z


def layer_norms(graph) -> list[LayerNorm]:
    """Every LayerNorm over the last axis in the converter's form, up to its RSQRT."""
    return [ln for op in graph.ops if op.name == "RSQRT" and (ln := layer_norm_at(op)) is not None]


def layer_norm_at(rsqrt: Op) -> LayerNorm | None:
    """The converter's LayerNorm ending in this RSQRT, or None."""
    add = rsqrt.present_inputs[0].producer
    if add is None or add.name != "ADD" or len(add.present_inputs) != 2:
        return None
    variance_t, eps_t = _split_constant(add)
    if variance_t is None or (variance := variance_t.producer) is None or variance.name != "MEAN":
        return None
    square = variance.present_inputs[0].producer
    if square is None or square.name != "SQUARED_DIFFERENCE":
        return None
    a, b = square.present_inputs
    for x, m in ((a, b), (b, a)):
        mean = _row_mean(m, x)
        if mean is not None and _reduces_row(variance, square.outputs[0]) and not x.is_constant \
                and square.outputs[0].shape == x.shape:
            return LayerNorm(x, mean, square, variance, add, rsqrt, float(np.ravel(eps_t.data())[0]))
    return None


def _row_mean(m: Tensor, x: Tensor) -> Op | None:
    """The MEAN of `x` over its last axis that `m` holds, shaped [..., 1] to broadcast against x:
    kept that way by the MEAN, or by a RESHAPE of it."""
    row = (*x.shape[:-1], 1)
    op = m.producer
    if m.shape != row or op is None:
        return None
    if op.name == "RESHAPE" and op.present_inputs[0].producer is not None:
        op = op.present_inputs[0].producer
    return op if _reduces_row(op, x) else None


def _reduces_row(op: Op, x: Tensor) -> bool:
    """A MEAN of `x` over its last axis and possibly axes of size 1, which it keeps ([..., 1]) or drops."""
    ins = op.present_inputs
    if op.name != "MEAN" or len(ins) < 2 or ins[0] is not x or not x.shape:
        return False
    reduced = reduced_axes(op)
    if not reduced:
        return False
    rank = len(x.shape)
    if rank - 1 not in reduced or any(x.shape[a] != 1 for a in reduced - {rank - 1}):
        return False
    kept = (*x.shape[:-1], 1)
    dropped = tuple(d for a, d in enumerate(x.shape) if a not in reduced)
    return op.outputs[0].shape in (kept, dropped)


def _split_constant(op: Op) -> tuple[Tensor | None, Tensor | None]:
    """(runtime input, single-value float constant input) of a two-input op, or (None, None)."""
    a, b = op.present_inputs
    for run, const in ((a, b), (b, a)):
        v = const.data()
        if v is not None and v.size == 1 and v.dtype.kind == "f" and not run.is_constant:
            return run, const
    return None, None
