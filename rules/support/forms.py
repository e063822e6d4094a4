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
    "CONV_2D 1x1 stride 2 with constant int8 weights, bias"
                                               the window (1x1, kx1, 1xk, kxk), strides (1, 2, or
                                               s above 2), dilation,
                                               the weights' kind and stored type, a bias
    "SELECT_V2 runtime bool [1,n,n,n], runtime [1,n,n,n], fp16 constant []"
                                               ops whose operands broadcast (comparisons, POW,
                                               SELECT, BATCH_MATMUL, ...): each operand's kind,
                                               type and shape, the output type, options
    "CUMSUM rank 2 of runtime,constant int32 scalar, exclusive, axis 1, last axis a multiple of 4"
                                               any other op type: its input rank, each operand,
                                               the options and axis it computes by, whether its
                                               last axis fills slices of 4

Every operand carries its provenance (`provenance`), because the accelerator reads each kind
through other code: "runtime" (computed at run time, also a weight made on the CPU, which reaches
a GPU kernel as a partition input), "constant" (data in the file), "fp16 constant" (FLOAT16 data
behind a DEQUANTIZE: TF's fp16 weights), "int8 constant" (int8 data behind a DEQUANTIZE). An
fp16 constant read by SELECT_V2 is computed as zeros on adapters with fp16 shaders, where the
same float32 constant is right (docs/fidelity.md), so a key never lets one stand for the other.
Every op the GPU takes has a key (`judged`); a key the grid never measured is unmeasured.
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
CONVOLUTIONS = ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV")
# The options and constant operands other op types compute by (an axis, a flag), written into
# their keys: CUMSUM exclusive or reversed, or along axis 0, is wrong where the plain one is right.
OPTION_FIELDS = ("axis", "adjX", "adjY", "exclusive", "reverse", "alignCorners", "halfPixelCenters")
AXIS_INPUT = {"REVERSE_V2": 1, "ARG_MAX": 1, "ARG_MIN": 1, "CUMSUM": 1, "SPLIT": 0, "SPLIT_V": 2}
# Other ops whose operands broadcast against each other: their keys write each operand's shape, as
# the binary keys do (a full-shape constant below rank 4 is wrong where a last-axis one is right).
BROADCASTING = ("LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL", "POW", "ATAN2", "FLOOR_DIV",
                "FLOOR_MOD", "LOGICAL_AND", "LOGICAL_OR", "SELECT", "SELECT_V2", "BATCH_MATMUL")
_DEQUANTIZE = opcodes.BUILTIN["DEQUANTIZE"]


def is_constant(t: Tensor) -> bool:
    """True for data in the file, also behind a DEQUANTIZE (fp16 weights): the delegate folds
    that DEQUANTIZE into a constant (model_builder.cc DequantizeOperationParser)."""
    if t.is_constant:
        return True
    p = t.producer
    return p is not None and p.builtin == _DEQUANTIZE and p.input(0) is not None and p.input(0).is_constant


def provenance(t: Tensor) -> str:
    """Where an operand's values come from, as a key names it: "constant", "fp16 constant",
    "int8 constant" (the stored type behind a DEQUANTIZE of a constant) or "runtime"."""
    if t.is_constant:
        return "constant"
    if is_constant(t):
        kind = stored(t).dtype_name.lower()
        return f"{'fp16' if kind == 'float16' else kind} constant"
    return "runtime"


def judged(op: Op) -> bool:
    """Whether a delegated op is judged by its form: every op is, but one whose outputs are all
    constants (a DEQUANTIZE of a constant, which the delegate folds into the constant its reader's
    key names by provenance)."""
    return not (op.outputs and all(is_constant(t) for t in op.outputs))


def dims(shape: Sequence[int]) -> str:
    """A shape as its form writes it: `n` for an axis above 1, `1` for an axis of 1 ("[n,1,n]")."""
    return "[" + ",".join("n" if d != 1 else "1" for d in shape) + "]"


def side(constant: bool) -> str:
    """How a weights key names their kind: "constant" or "runtime"."""
    return "constant" if constant else "runtime"


def binary_key(op: str, a: tuple[str, Sequence[int]], b: tuple[str, Sequence[int]]) -> str:
    """The key of binary op `op` on operands given as (provenance, shape), in the op's order."""
    if a[0] != "runtime" and b[0] == "runtime" and op not in ORDERED:
        a, b = b, a
    return f"{op} {a[0]} {dims(a[1])} with {b[0]} {dims(b[1])}"


def form_of(op: Op) -> str | None:
    """The op's form key; None when its form cannot be read from the file (e.g. axes computed at
    run time). A non-float input (a full-int8 model's) is named after the op type: the
    accelerator runs it through other code than the float form measured under the same shapes."""
    name, x = op.name, op.input(0)
    if x is None or not op.outputs:
        return None
    if name == "FULLY_CONNECTED":
        return _fully_connected(op)
    if name in CONVOLUTIONS:
        return _convolution(op)
    key = _shaped(op)
    if key is _UNKEYED:
        return _generic(op)
    if key is None or name == "EMBEDDING_LOOKUP":  # its first input is the ids; the key names the table
        return key
    if name not in BINARY and name != "CONCATENATION" and provenance(x) != "runtime":
        key += f" of {provenance(x)}"  # a layout op or reduction of data in the file: other code than a tensor's
    typed = _dtype_prefix(x)
    return key.replace(name, name + " " + typed[:-1], 1) if typed else key


BATCH = ", first axis above 1"  # what form_with_batch adds
REVERSED = ", reversed"  # and to a STRIDED_SLICE with a negative stride


def form_with_batch(op: Op) -> str | None:
    """The op's form key as the classic GL delegate's table keys it: a key that spells no operand's
    shape (an elementwise op of one operand, a layout op, a reduction, a convolution) says too
    whether the output's first axis is above 1. That delegate maps the first axis of every tensor
    to its batch, which most of its kernels do not handle: "TANH rank 2" of [1, 8] is right there
    and of [3, 8] wrong (LiteRT's accelerator does not care, and its table keeps form_of's keys). A
    STRIDED_SLICE with a negative stride is keyed apart: the delegate cannot build it, and an
    identity slice of the same axes builds."""
    key = form_of(op)
    if key is None or "[" in key:
        return key
    if op.name == "STRIDED_SLICE" and _reversed(op):
        key += REVERSED
    out = op.outputs[0].shape
    return key + BATCH if len(out) and out[0] > 1 else key


def _reversed(op: Op) -> bool:
    """A STRIDED_SLICE with a negative stride (the GL delegate refuses to build it)."""
    strides = op.input(3)
    values = None if strides is None else strides.data()
    return values is not None and bool((values < 0).any())


_UNKEYED = "unkeyed"  # an op type with no key of its own: the generic key names it


def _shaped(op: Op) -> str | None:
    """The key of an op type whose form is its shapes and axes (before a non-float input's type is
    named); _UNKEYED for the other op types."""
    name, x = op.name, op.input(0)
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
    if name in PADS:  # the batch matters: a rank-3 PAD is wrong at batch 6, right at batch 1 (not an open one)
        pads = _pads(op)
        batch = " at batch 1" if x.rank >= 2 and x.shape[0] == 1 and x.signature[0] == 1 else ""
        return None if pads is None else f"{name} rank {x.rank} on axes {pads}{batch}"
    if name in REDUCTIONS:
        return _reduction(op)
    if name == "EMBEDDING_LOOKUP":
        return _embedding_lookup(op)
    return _UNKEYED


def _embedding_lookup(op: Op) -> str | None:
    """The table's rank, and where it comes from when it is not a float32 constant ("of int8
    table": read quantized; "of fp16 constant table")."""
    table = op.input(1)
    if table is None:
        return None
    kind = provenance(table)
    stored_as = stored(table).dtype_name.lower()
    source = "" if kind == "constant" and stored_as == "float32" else \
        f" of {stored_as if kind == 'constant' else kind} table"
    return f"EMBEDDING_LOOKUP rank {table.rank}{source}"


def _binary(op: Op) -> str | None:
    a, b = op.input(0), op.input(1)
    if b is None:
        return None
    pa, pb = provenance(a), provenance(b)
    if pa != "runtime" and pb != "runtime":
        return None
    return binary_key(op.name, (pa, a.shape), (pb, b.shape))


def _convolution(op: Op) -> str | None:
    """The window (1x1, kx1, 1xk or kxk), the strides, dilation, a non-float input, and the weights
    and bias as FULLY_CONNECTED's key names them. TRANSPOSE_CONV reads (output shape, weights,
    input, bias)."""
    transposed = op.name == "TRANSPOSE_CONV"
    x, w = op.input(2 if transposed else 0), op.input(1)
    if x is None or w is None or w.rank != 4:
        return None
    _, h, wd, _ = w.shape
    window = f"{'k' if h > 1 else 1}x{'k' if wd > 1 else 1}"
    o = op.options
    strides = (getattr(o, "strideH", 1), getattr(o, "strideW", 1))
    steps = ["s" if v > 2 else str(v) for v in strides]  # s: a stride above 2 (raw-audio framing: 160)
    stride = steps[0] if steps[0] == steps[1] else f"{steps[0]},{steps[1]}"
    if transposed and max(strides) > 1 and x.rank == 4 and (x.shape[1] % 2 or x.shape[2] % 2):
        stride += " of an odd size"  # measured wrong at a 5x3 input, right at 6x4
    dilated = " dilated" if max(getattr(o, "dilationHFactor", 1), getattr(o, "dilationWFactor", 1)) > 1 else ""
    weights = _weights(op, w, 3 if transposed else 2)
    return f"{op.name} {_dtype_prefix(x)}{window} stride {stride}{dilated} with {weights}"


def _weights(op: Op, w: Tensor, bias_at: int) -> str:
    """ "constant float32 weights, bias": the weights' kind and stored type ("dequantized int8"
    when a DEQUANTIZE reads the int8 values, not the op itself), and a bias (constant or runtime)
    when there is one."""
    bias = op.input(bias_at)
    bias = "" if bias is None else f", {'bias' if is_constant(bias) else 'runtime bias'}"
    dequantized = "dequantized " if provenance(w) == "int8 constant" else ""  # int8 read by a DEQUANTIZE, not the op
    return f"{side(is_constant(w))} {dequantized}{stored(w).dtype_name.lower()} weights{bias}"


def _dtype_prefix(x: Tensor) -> str:
    """A non-float input's type, as a key names it before the shapes ("int8 "); "" for float32."""
    return "" if x.dtype_name == "FLOAT32" else x.dtype_name.lower() + " "


def _generic(op: Op) -> str:
    """Any other op type: its first input's rank, each operand in order (provenance, a type
    other than float32, "scalar" for one element broadcast to a larger output; for BROADCASTING
    ops each operand's shape instead of the rank), and the output type when no input has it (CAST,
    comparisons)."""
    x, out = op.input(0), op.outputs[0]
    to = "" if any(t.dtype == out.dtype for t in op.present_inputs) else f" to {out.dtype_name.lower()}"
    if op.name in BROADCASTING:  # BATCH_MATMUL broadcasts its batch axes
        shapes = ", ".join(f"{_operand(t)} {dims(t.shape)}" for t in op.present_inputs)
        return f"{op.name} {shapes}{to}{_computed_by(op, x.rank)}"
    size = out.num_elements
    operands = ",".join(_operand(t) + (" scalar" if t.num_elements == 1 < size else "") if t is not None else "none"
                        for t in op.inputs)
    sliced = "" if not x.rank else f", last axis {'a multiple of 4' if x.shape[-1] % 4 == 0 else 'not a multiple of 4'}"
    return f"{op.name} rank {x.rank} of {operands}{to}{_computed_by(op, x.rank)}{sliced}"


def _computed_by(op: Op, rank: int) -> str:
    """The options and constant axis an op computes by, as its key writes them (", axis 0,
    exclusive"): the OPTION_FIELDS set on it (an axis counted from the front, flags that are
    true) and the axis operand of AXIS_INPUT ops; "" when there are none."""
    found = []
    for name in OPTION_FIELDS:
        value = getattr(op.options, name, None)
        if name == "axis" and value is not None:
            found.append(f"axis {int(value) % max(rank, 1)}")
        elif value is True:
            found.append(name)
    if op.name in AXIS_INPUT:
        axes = _ints(op.input(AXIS_INPUT[op.name]))
        found.append("axis " + ("unknown" if axes is None else _join(sorted({a % max(rank, 1) for a in axes}))))
    return "".join(f", {f}" for f in found)


def _operand(t: Tensor) -> str:
    """An operand's provenance, and its type when it is not float32 ("runtime bool")."""
    kind = provenance(t)
    return kind if t.dtype_name == "FLOAT32" else f"{kind} {t.dtype_name.lower()}"


def _fully_connected(op: Op) -> str | None:
    """The shapes in and out (the delegate maps each to BHWC by its rank, and runs the op as a
    1x1 convolution when H or W is not 1), keep_num_dims, the weights' kind and stored type
    (float32; int8, read by a hybrid kernel; float16 behind a DEQUANTIZE), and a bias. A
    non-float input is named before the shapes."""
    x, w, out = op.input(0), op.input(1), op.outputs[0]
    if w is None:
        return None
    keep = ", keeping dims" if getattr(op.options, "keepNumDims", False) else ""
    return f"FULLY_CONNECTED {_dtype_prefix(x)}{dims(x.shape)} to {dims(out.shape)}{keep} with {_weights(op, w, 2)}"


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
    kinds = [provenance(t) for t in op.present_inputs]
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
