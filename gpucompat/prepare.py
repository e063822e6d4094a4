"""Can the interpreter prepare the model at its stored input shapes? Shapes as prepare works them
out, without TensorFlow.

The runtime prepares every op of the main subgraph before a delegate sees the graph
(tflite/core/subgraph.cc PrepareOpsStartingAt, from AllocateTensors and ModifyGraphWithDelegate),
each kernel computing its output shape from its inputs' shapes. A converted model stores a
dynamic dimension (-1 in the signature) as 1, and the converter's stored output shapes are no
proof that the kernels accept those sizes: an audio model whose signature is [-1, -1] is stored
as [1, 1], and a VALID CONV_2D with a 512-wide kernel then has an input 1 wide. Its Prepare fails
("Node number N (CONV_2D) failed to prepare."), the interpreter cannot allocate the model, and no
delegate runs: observed with ai-edge-litert 2.3.0, on the CPU interpreter and on the GPU
accelerator alike.

Shapes are propagated from the subgraph's stored input shapes through the ops whose shape rule
is written here (the kernels' own rules); an op without one keeps its stored output shapes when
its inputs keep theirs and the outputs' signatures are static, and its outputs are unknown
otherwise (the stored 1 of a -1 dimension is a placeholder), as are the outputs of a shape rule
that needs a value only known at run time. Nothing downstream of an unknown shape is judged.
Failures reported are the ones a kernel's Prepare refuses: a spatial window that yields
a negative output size (padding.h ComputeOutSize; 0 is accepted), operands that do not
broadcast, a RESHAPE or FULLY_CONNECTED whose element counts do not divide, CONCATENATION
operands that differ off the axis. An output with no elements (a window that fits exactly
nowhere: width 0) is reported apart: the interpreter prepares it, and LiteRT's GPU accelerator
then crashes compiling the model (SIGFPE, observed with ai-edge-litert 2.3.0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpucompat.ir import Graph, Op, Tensor, opcodes

Shape = tuple[int, ...]
B = opcodes.BUILTIN
_SAME, _VALID = 0, 1  # schema Padding
_UNSEEN = object()


class PrepareError(Exception):
    """An op's Prepare refuses its input shapes; the message says why."""


@dataclass(frozen=True)
class PrepareFailure:
    """The first op whose Prepare fails at the stored input shapes."""

    subgraph: int
    index: int
    op: str
    reason: str
    dynamic_inputs: tuple[str, ...] = ()  # the inputs with a dynamic dimension, stored at a placeholder
    empty: bool = False  # prepare passes, but the op's output has no elements (see prepare_failure)

    @property
    def runtime_message(self) -> str:
        """The line the runtime prints (subgraph.cc PrepareOpsStartingAt)."""
        return f"Node number {self.index} ({self.op}) failed to prepare."


def prepare_failure(graph: Graph) -> PrepareFailure | None:
    """The first op of `graph`, in plan order, whose Prepare fails at the stored input shapes;
    when every op whose shapes are known prepares, the first one whose output has no elements
    although its inputs have some (`empty`: a VALID window exactly as wide as its input allows
    gives width 0, which prepare accepts); None when neither happens."""
    shapes: dict[int, Shape | None] = {id(t): t.shape for t in graph.inputs if t is not None}
    dynamic = tuple(t.name for t in graph.inputs if t is not None and t.is_dynamic)
    first_empty: PrepareFailure | None = None

    def shape(t: Tensor | None) -> Shape | None:
        if t is None:
            return None
        got = shapes.get(id(t), _UNSEEN)  # an earlier op's output, mostly: no other question
        if got is not _UNSEEN:
            return got
        return t.shape if t.producer is None or t.is_constant else None

    for op in graph.ops:
        rule = _RULES.get(op.code.builtin)
        ins = [shape(t) for t in op.inputs]
        known = None not in ins or all(s is not None for t, s in zip(op.inputs, ins) if t is not None)
        if rule is not None and known:
            try:
                outs = rule(op, ins) or [None] * len(op.outputs)
            except PrepareError as e:
                return PrepareFailure(graph.index, op.index, op.name, str(e), dynamic)
            except (IndexError, ValueError, TypeError, AttributeError, ZeroDivisionError):
                outs = [None] * len(op.outputs)  # parameters the rule cannot read: the shapes stay unknown
            empty = None
            for s in outs:  # a loop, not next(generator): asked of every op
                if s is not None and 0 in s:
                    empty = s
                    break
            if empty is not None and first_empty is None and all(0 not in s for s in ins if s is not None):
                first_empty = PrepareFailure(graph.index, op.index, op.name,
                                             f"its output {_text(empty)} has no elements (inputs "
                                             f"{', '.join(_text(s) for s in ins if s is not None)})", dynamic, True)
        else:
            unchanged = known and all(s == t.shape for t, s in zip(op.inputs, ins) if t is not None)
            outs = [t.shape if unchanged and not t.is_dynamic else None for t in op.outputs]
        for t, s in zip(op.outputs, outs):
            shapes[id(t)] = s
    return first_empty


def _same(op: Op, ins: list) -> list:
    return [ins[0]]


def _broadcast(op: Op, ins: list) -> list:
    present = [s for s in ins if s is not None]
    try:
        return [broadcast_shapes(present)]
    except ValueError:
        raise PrepareError(f"operand shapes {', '.join(map(_text, present))} do not broadcast") from None


def broadcast_shapes(shapes: list[Shape]) -> Shape:
    """numpy.broadcast_shapes of `shapes` as a tuple of Python ints (ValueError when they do not
    broadcast), worked out on the tuples: numpy's makes arrays of them, a tenth of a 20,000-op
    model's prepare. A negative or implausibly many dimensions are left to numpy."""
    rank = max(map(len, shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        for k, d in enumerate(shape, rank - len(shape)):
            if d < 0 or rank > 32:
                return tuple(map(int, np.broadcast_shapes(*shapes)))
            have = out[k]
            if d != have and d != 1:
                if have != 1:
                    raise ValueError("shapes do not broadcast")
                out[k] = d
    return tuple(map(int, out))


def _window(size: int, kernel: int, stride: int, dilation: int, padding: int, what: str) -> int:
    """padding.h ComputeOutSize, C integer division (towards zero); a negative size fails."""
    if stride == 0:
        return 0
    effective = (kernel - 1) * dilation + 1
    numerator = size + stride - 1 if padding == _SAME else size + stride - effective
    out = int(numerator / stride) if padding in (_SAME, _VALID) else 0
    if out < 0:
        raise PrepareError(f"its {what} input is {size} wide and its VALID {what} window {effective} wide "
                           f"(stride {stride}): the output would be {out} wide")
    return out


def _spatial(op: Op, x: Shape, kh: int, kw: int, channels: int, dilated: bool = True) -> Shape:
    if len(x) != 4:
        raise PrepareError(f"its input has rank {len(x)}, not 4")
    o = op.options
    dh, dw = (o.dilationHFactor or 1, o.dilationWFactor or 1) if dilated else (1, 1)
    return (x[0], _window(x[1], kh, o.strideH, dh, o.padding, "height"),
            _window(x[2], kw, o.strideW, dw, o.padding, "width"), channels)


def _conv(op: Op, ins: list) -> list:
    w = ins[1]
    return [_spatial(op, ins[0], w[1], w[2], w[0])]


def _depthwise(op: Op, ins: list) -> list:
    w = ins[1]
    return [_spatial(op, ins[0], w[1], w[2], w[3])]


def _pool(op: Op, ins: list) -> list:
    o = op.options
    return [_spatial(op, ins[0], o.filterHeight, o.filterWidth, ins[0][-1] if ins[0] else 0, dilated=False)]


def _constant(t: Tensor | None) -> list[int] | None:
    v = t.data() if t is not None else None
    return None if v is None else [int(d) for d in np.asarray(v).reshape(-1)]


def _reshape(op: Op, ins: list) -> list | None:
    target = _constant(op.input(1)) if op.input(1) is not None else None
    if target is None and op.input(1) is None and op.options is not None and op.options.newShape is not None:
        target = [int(d) for d in op.options.newShape]
    if target is None:
        return None
    count = _count(ins[0])
    known = _count([d for d in target if d != -1])
    if -1 in target:
        if known == 0 or count % known:
            raise PrepareError(f"cannot reshape {_text(ins[0])} ({count} elements) to {target}")
        target = [count // known if d == -1 else d for d in target]
    elif known != count:
        raise PrepareError(f"cannot reshape {_text(ins[0])} ({count} elements) to {target}")
    return [tuple(target)]


def _expand_dims(op: Op, ins: list) -> list | None:
    axis = _constant(op.input(1))
    if not axis:
        return None
    x = ins[0]
    a = axis[0] + len(x) + 1 if axis[0] < 0 else axis[0]
    return [x[:a] + (1,) + x[a:]]


def _squeeze(op: Op, ins: list) -> list:
    x = ins[0]
    dims = op.options.squeezeDims if op.options is not None else None
    axes = {d % len(x) for d in dims} if dims is not None and len(dims) else {i for i, d in enumerate(x) if d == 1}
    return [tuple(d for i, d in enumerate(x) if i not in axes)]


def _reduce(op: Op, ins: list) -> list | None:
    axes = _constant(op.input(1))
    if axes is None:
        return None
    x = ins[0]
    axes = {a % len(x) for a in axes} if x else set()
    keep = op.options is not None and op.options.keepDims
    return [tuple(1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes)]


def _fully_connected(op: Op, ins: list) -> list:
    x, w = ins[0], ins[1]
    depth, count = w[-1], _count(x)
    if depth == 0 or count % depth:
        raise PrepareError(f"its input {_text(x)} ({count} elements) is not a whole number of rows of "
                           f"the weights' depth {depth}")
    keep = op.options is not None and op.options.keepNumDims
    return [x[:-1] + (w[0],) if keep else (count // depth, w[0])]


def _concatenation(op: Op, ins: list) -> list:
    first = ins[0]
    axis = op.options.axis % len(first) if first else 0
    for s in ins[1:]:
        if len(s) != len(first) or any(a != b for i, (a, b) in enumerate(zip(s, first)) if i != axis):
            raise PrepareError(f"operands {_text(first)} and {_text(s)} differ off axis {axis}")
    return [first[:axis] + (sum(s[axis] for s in ins),) + first[axis + 1:]]


def _transpose(op: Op, ins: list) -> list | None:
    perm = _constant(op.input(1))
    if perm is None:
        return None
    if sorted(int(p) % max(len(ins[0]), 1) for p in perm) != list(range(len(ins[0]))) or \
            any(not -len(ins[0]) <= int(p) < len(ins[0]) for p in perm):
        # transpose.cc Prepare: "Transpose op permutations array is out of bounds."
        raise PrepareError(f"its permutation {[int(p) for p in perm]} is not one of the input's {len(ins[0])} axes")
    return [tuple(ins[0][p] for p in perm)]


def _pad(op: Op, ins: list) -> list | None:
    pads = _constant(op.input(1))
    if pads is None:
        return None
    return [tuple(d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(ins[0]))]


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _text(shape: Shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


_UNARY = ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "TANH", "LOGISTIC", "ABS", "EXP", "LOG", "SQRT",
          "RSQRT", "NEG", "SQUARE", "SIN", "COS", "HARD_SWISH", "GELU", "LEAKY_RELU", "ELU", "SOFTMAX",
          "LOG_SOFTMAX", "DEQUANTIZE", "QUANTIZE", "CAST", "FLOOR", "CEIL", "ROUND", "SIGN",
          "L2_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION", "LOGICAL_NOT", "ZEROS_LIKE", "ONES_LIKE")
_BINARY = ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "POW", "SQUARED_DIFFERENCE", "FLOOR_DIV",
           "FLOOR_MOD", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL",
           "LOGICAL_AND", "LOGICAL_OR", "SELECT_V2", "PRELU")
_RULES: dict[int, Callable[[Op, list], list | None]] = {
    **{B[n]: _same for n in _UNARY if n in B},
    **{B[n]: _broadcast for n in _BINARY if n in B},
    B["CONV_2D"]: _conv, B["DEPTHWISE_CONV_2D"]: _depthwise,
    B["AVERAGE_POOL_2D"]: _pool, B["MAX_POOL_2D"]: _pool, B["L2_POOL_2D"]: _pool,
    B["RESHAPE"]: _reshape, B["EXPAND_DIMS"]: _expand_dims, B["SQUEEZE"]: _squeeze,
    **{B[n]: _reduce for n in ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD")},
    B["FULLY_CONNECTED"]: _fully_connected, B["CONCATENATION"]: _concatenation,
    B["TRANSPOSE"]: _transpose, B["PAD"]: _pad, B["PADV2"]: _pad,
}
