"""Op forms: the shape of an op that decides whether LiteRT's GPU accelerator computes it right.

The accelerator lays every tensor out as BHWC by its rank (rank 1 [n] is B=n, rank 2 is B,C,
rank 3 is B,W,C) and reads a constant operand as a vector or as HWC (docs/research: shape mapping),
so whether it computes an op right depends on the ranks of its operands, on which axes have their
full size and which are 1, on which operand is a constant, and for layout ops and reductions on
the axes they act on; not on the sizes themselves. A form key says exactly that, in a finite
space the numerics grid (gpucompat/calibrate/grid.py) enumerates, so that a form it never measured is
"unmeasured" (rules/support/calibration/), never assumed right.

An operand's shape is written with `n` for an axis of size above 1 and `1` for an axis of size 1
("[n,1,n]"; "[]" is rank 0). Read against the other operand, aligned from the right, that says
per output axis whether the operand has the full size, broadcasts a 1, or the output is 1 too.

Examples of keys:
    "ADD runtime [n] with constant [n,1,n]"    ADD of [8] and a constant [2,1,8]
    "SUB constant [n] with runtime [n]"        the constant first (SUB, DIV: order matters)
    "EXP rank 2"                               an elementwise op of one operand
    "SOFTMAX [n]"
    "TRANSPOSE rank 3 perm 1,0,2"
    "SLICE rank 3 on axes 1"                   the axes whose size the op changes
    "CONCATENATION rank 2 axis 1 of runtime,constant"  operands in order, repeats written once
    "RESHAPE rank 3 to rank 2"
    "PAD rank 3 on axes 1"
    "MEAN rank 3 over axes 1,2 (short)"        whether 1024 elements or more go into each output
    "FULLY_CONNECTED [n] to [1,n] with constant float32 weights, bias"
                                               input and output shapes, keep_num_dims ("keeping
                                               dims"), the weights' kind and stored type, a bias
"""

from __future__ import annotations

from collections.abc import Sequence

from gpucompat.ir import Op, Tensor, opcodes

# Elementwise ops with two broadcasting operands that the calibration covers.
BINARY = ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE")
# Of those, the ones whose constant operand may come first with another meaning: the key keeps
# their order (the others are written runtime operand first, as the delegate reads them).
ORDERED = ("SUB", "DIV")
# Elementwise ops of one operand that the litert-mldrift profile delegates and TF's converter writes.
UNARY = ("ABS", "CEIL", "COS", "EXP", "FLOOR", "LOG", "NEG", "ROUND", "SIN", "SQRT", "SQUARE", "ELU", "GELU",
         "SIGN", "LEAKY_RELU", "RSQRT", "TANH", "LOGISTIC", "RELU", "RELU6", "HARD_SWISH", "RELU_N1_TO_1")
PADS = ("PAD", "PADV2", "MIRROR_PAD")
SLICES = ("SLICE", "STRIDED_SLICE")
REDUCTIONS = ("SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD")
LONG_REDUCTION = 1024  # elements reduced into each output from which a reduction is "long"
# The op types that have form keys: a delegated op of one of them whose key the calibration
# never measured is reported as unmeasured (GPU007).
KEYED = frozenset((*BINARY, *UNARY, "SOFTMAX", "TRANSPOSE", *SLICES, "CONCATENATION", "RESHAPE", *PADS, *REDUCTIONS,
                   "EMBEDDING_LOOKUP", "FULLY_CONNECTED"))
_DEQUANTIZE = opcodes.BUILTIN["DEQUANTIZE"]


def is_constant(t: Tensor) -> bool:
    """True for data in the file, also behind a DEQUANTIZE (fp16 weights): the delegate folds
    that DEQUANTIZE into a constant (model_builder.cc DequantizeOperationParser)."""
    if t.is_constant:
        return True
    p = t.producer
    return p is not None and p.builtin == _DEQUANTIZE and p.input(0) is not None and p.input(0).is_constant


def dims(shape: Sequence[int]) -> str:
    """A shape as its form writes it: `n` for an axis above 1, `1` for an axis of 1 ("[n,1,n]")."""
    return "[" + ",".join("n" if d != 1 else "1" for d in shape) + "]"


def side(constant: bool) -> str:
    """How a key names an operand: "constant" or "runtime"."""
    return "constant" if constant else "runtime"


def binary_key(op: str, a: tuple[bool, Sequence[int]], b: tuple[bool, Sequence[int]]) -> str:
    """The key of binary op `op` on operands given as (is constant, shape), in the op's order."""
    if a[0] and not b[0] and op not in ORDERED:
        a, b = b, a
    return f"{op} {side(a[0])} {dims(a[1])} with {side(b[0])} {dims(b[1])}"


def form_of(op: Op) -> str | None:
    """The op's form key, None for ops the calibration does not cover (or whose form cannot be
    read from the file, e.g. axes computed at run time)."""
    name, x = op.name, op.input(0)
    if x is None or not op.outputs:
        return None
    if name in BINARY:
        return _binary(op)
    if name in UNARY:
        return f"{name} rank {x.rank}"
    if name == "SOFTMAX":
        return f"SOFTMAX {dims(x.shape)}"
    if name == "TRANSPOSE":
        perm = _ints(op.input(1))
        return None if perm is None else f"TRANSPOSE rank {x.rank} perm {_join(perm)}"
    if name in SLICES:
        return _slice(op)
    if name == "CONCATENATION":
        return _concatenation(op)
    if name == "RESHAPE":
        return f"RESHAPE rank {x.rank} to rank {op.outputs[0].rank}"
    if name in PADS:
        pads = _pads(op)
        return None if pads is None else f"{name} rank {x.rank} on axes {pads}"
    if name in REDUCTIONS:
        return _reduction(op)
    if name == "EMBEDDING_LOOKUP":
        table = op.input(1)
        return None if table is None else f"EMBEDDING_LOOKUP rank {table.rank}"
    if name == "FULLY_CONNECTED":
        return _fully_connected(op)
    return None


def _binary(op: Op) -> str | None:
    a, b = op.input(0), op.input(1)
    if b is None:
        return None
    ca, cb = is_constant(a), is_constant(b)
    if ca and cb:
        return None
    return binary_key(op.name, (ca, a.shape), (cb, b.shape))


def _fully_connected(op: Op) -> str | None:
    """The shapes in and out (the delegate maps each to BHWC by its rank, and runs the op as a
    1x1 convolution when H or W is not 1), keep_num_dims, the weights' kind and stored type
    (float32; int8, read by a hybrid kernel; float16 behind a DEQUANTIZE), and a bias. A
    non-float input is named before the shapes."""
    x, w, out = op.input(0), op.input(1), op.outputs[0]
    if w is None:
        return None
    dtype = "" if x.dtype_name == "FLOAT32" else x.dtype_name.lower() + " "
    keep = ", keeping dims" if getattr(op.options, "keepNumDims", False) else ""
    weights = f"{side(is_constant(w))} {stored(w).dtype_name.lower()}"
    bias = op.input(2)
    bias = "" if bias is None else f", {'bias' if is_constant(bias) else 'runtime bias'}"
    return f"FULLY_CONNECTED {dtype}{dims(x.shape)} to {dims(out.shape)}{keep} with {weights} weights{bias}"


def stored(t: Tensor) -> Tensor:
    """The tensor holding a constant's data: `t`, or the input of the DEQUANTIZE that makes it."""
    return t.producer.input(0) if not t.is_constant and is_constant(t) else t


def _ints(t: Tensor | None) -> list[int] | None:
    v = t.data() if t is not None else None
    return None if v is None else [int(i) for i in v.ravel()]


def _join(values) -> str:
    return ",".join(str(v) for v in values) or "none"


def _slice(op: Op) -> str | None:
    """The axes whose size the slice changes; for STRIDED_SLICE also a step other than 1 and a
    rank it drops to."""
    x, out = op.input(0), op.outputs[0]
    key = f"{op.name} rank {x.rank}"
    if op.name == "STRIDED_SLICE":
        strides = _ints(op.input(3))
        if strides is None:
            return None
        if any(abs(s) != 1 for s in strides):
            key += " step " + _join(sorted({abs(s) for s in strides if abs(s) != 1}))
        if out.rank != x.rank:
            return f"{key} to rank {out.rank}"
    if out.rank != x.rank:
        return None
    return f"{key} on axes {_join(i for i, (a, b) in enumerate(zip(x.shape, out.shape)) if a != b)}"


def _concatenation(op: Op) -> str | None:
    """The axis, and the kinds of operand in order with a run of one kind written once."""
    x = op.input(0)
    axis = getattr(op.options, "axis", None)
    if axis is None:
        return None
    kinds = [side(is_constant(t)) for t in op.present_inputs]
    sides = ",".join(k for i, k in enumerate(kinds) if i == 0 or k != kinds[i - 1])  # runtime,runtime: runtime
    return f"CONCATENATION rank {x.rank} axis {int(axis) % max(x.rank, 1)} of {sides}"


def _reduction(op: Op) -> str | None:
    """The reduced axes, and whether each output reduces LONG_REDUCTION elements or more (an fp16
    total passes 65504, fp16's largest value, sooner the more elements it adds up)."""
    reduced = reduced_axes(op)
    if reduced is None:
        return None
    kept = ", kept" if getattr(op.options, "keepDims", False) else ""
    long = reduced_elements(op) >= LONG_REDUCTION
    return f"{op.name} rank {op.input(0).rank} over axes {_join(reduced)}{kept} ({'long' if long else 'short'})"


def reduced_axes(op: Op) -> list[int] | None:
    """The axes a reduction (SUM, MEAN, ...) adds up, in order; None when they are not constant."""
    x, axes = op.input(0), _ints(op.input(1))
    return None if x is None or axes is None else sorted({a % max(x.rank, 1) for a in axes})


def reduced_elements(op: Op) -> int:
    """The elements a reduction adds up into each output (0 when its axes are not constant)."""
    reduced, x = reduced_axes(op), op.input(0)
    if reduced is None:
        return 0
    n = 1
    for a in reduced:
        n *= x.shape[a] if a < x.rank else 1
    return n


def _pads(op: Op) -> str | None:
    """The padded axes of a PAD with constant paddings ("1", "1,2"; "none"), None when unknown."""
    p = op.input(1)
    v = p.data() if p is not None else None
    if v is None or v.ndim != 2:
        return None
    return _join(i for i, (lo, hi) in enumerate(v.tolist()) if lo or hi)
