"""Op forms: the shape of an op that decides whether LiteRT's GPU accelerator computes it right.

The accelerator computes some delegated ops wrongly depending on their ranks, on which operand is
a constant and on how it broadcasts (docs/rules.md, GPU005). A form is the key the numerics
calibration (rules/calibration/) records verdicts under and the rules look up, so the grid that
measures it (tests/numerics_grid.py) and the rules that read it name forms the same way.

Examples of keys:
    "ADD runtime rank 2 + constant rank 3 (same)"    the constant has the output's shape
    "MUL runtime rank 2 + constant rank 3 (channel)" the constant is 1 x ... x 1 x C
    "ADD runtime rank 3 (same, leading 1) + ..."     a rank-2/3 runtime operand of shape [1, ...]
    "ADD runtime rank 4 (single, spread on axes 2) + ..."  broadcast along a non-channel axis
    "PAD rank 3 on axes 1"                           pads only axis 1 of a rank-3 tensor
    "SUM rank 4 over long axes"                      1024 or more elements per output
"""

from __future__ import annotations

from collections.abc import Sequence

from gpucompat.ir import Op, Tensor, opcodes

# Elementwise ops with two broadcasting operands that the calibration covers.
BINARY = ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE")
PADS = ("PAD", "PADV2", "MIRROR_PAD")
MOVES = ("SLICE", "STRIDED_SLICE", "CONCATENATION", "TRANSPOSE", "RESHAPE")
REDUCTIONS = ("SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD")
_DEQUANTIZE = opcodes.BUILTIN["DEQUANTIZE"]


def is_constant(t: Tensor) -> bool:
    """True for data in the file, also behind a DEQUANTIZE (fp16 weights): the delegate folds
    that DEQUANTIZE into a constant (model_builder.cc DequantizeOperationParser)."""
    if t.is_constant:
        return True
    p = t.producer
    return p is not None and p.builtin == _DEQUANTIZE and p.input(0) is not None and p.input(0).is_constant


def pattern(shape: Sequence[int], out: Sequence[int]) -> str:
    """How an operand of `shape` broadcasts to the output shape `out`: scalar (rank 0), single
    (one element), same (the output's shape), channel (1 x ... x 1 x C), suffix (the output's
    trailing dimensions, fewer of them), broadcast (anything else)."""
    shape, out = tuple(shape), tuple(out)
    if not shape:
        return "scalar"
    if all(d == 1 for d in shape):
        return "single"
    if shape == out:
        return "same"
    if all(d == 1 for d in shape[:-1]) and out and shape[-1] == out[-1]:
        return "channel"
    trimmed = shape[next(i for i, d in enumerate(shape) if d != 1):]
    if len(trimmed) < len(out) and tuple(out[-len(trimmed):]) == trimmed:
        return "suffix"
    return "broadcast"


def form_of(op: Op) -> str | None:
    """The op's form key, None for ops the calibration does not cover."""
    name = op.name
    if name in BINARY:
        return _binary(op)
    if name in PADS:
        pads = _pads(op)
        return None if pads is None else f"{name} rank {op.input(0).rank} on axes {pads}"
    if name in REDUCTIONS:
        return _reduction(op)
    if name in MOVES or name == "EMBEDDING_LOOKUP":
        x = op.input(1) if name == "EMBEDDING_LOOKUP" else op.input(0)
        return None if x is None else f"{name} rank {x.rank}"
    return None


def _binary(op: Op) -> str | None:
    a, b = op.input(0), op.input(1)
    if a is None or b is None or not op.outputs:
        return None
    ca, cb = is_constant(a), is_constant(b)
    if ca and cb:
        return None
    out = op.outputs[0].shape
    if ca:  # the runtime operand is named first: a constant first operand is the same form
        a, b = b, a
    side = "constant" if ca or cb else "runtime"
    lead = ", leading 1" if 2 <= a.rank <= 3 and a.shape[0] == 1 else ""
    b_spread = _spread(b.shape, out) if side == "runtime" else ""
    return (f"{op.name} runtime rank {a.rank} ({pattern(a.shape, out)}{lead}{_spread(a.shape, out)}) + {side} "
            f"rank {b.rank} ({pattern(b.shape, out)}{b_spread})")


def _spread(shape: Sequence[int], out: Sequence[int]) -> str:
    """", spread on axes 0,1" when a runtime operand is broadcast along output axes other than the
    last (the channels): a [1,1,1,1] operand with a constant [2,4,8,16] is computed wrongly, with
    a constant [1,1,1,4] or [1,1,1024,1] right."""
    padded = (1,) * (len(out) - len(shape)) + tuple(shape)
    axes = [str(i) for i, (x, o) in enumerate(zip(padded[:-1], tuple(out)[:-1])) if x == 1 and o > 1]
    return f", spread on axes {','.join(axes)}" if axes else ""


LONG_REDUCTION = 1024  # elements reduced into each output from which a reduction is "long"


def _reduction(op: Op) -> str | None:
    """ "SUM rank 4 over long axes": whether each output reduces LONG_REDUCTION elements or more
    (an fp16 total passes 65504, fp16's largest value, sooner the more elements it adds up)."""
    x, axes = op.input(0), op.input(1)
    v = axes.data() if axes is not None else None
    if x is None or v is None:
        return None
    n = 1
    for a in {int(a) % max(x.rank, 1) for a in v.ravel()}:
        n *= x.shape[a] if a < x.rank else 1
    return f"{op.name} rank {x.rank} over {'long' if n >= LONG_REDUCTION else 'short'} axes"


def _pads(op: Op) -> str | None:
    """The padded axes of a PAD with constant paddings ("1", "1,2"; "none"), None when unknown."""
    p = op.input(1)
    v = p.data() if p is not None else None
    if v is None or v.ndim != 2:
        return None
    axes = [str(i) for i, (lo, hi) in enumerate(v.tolist()) if lo or hi]
    return ",".join(axes) or "none"
