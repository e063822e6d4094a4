"""Elementwise ops (opencl/elementwise.cl): one- and two-input ops with numpy broadcasting and
constant operands, fused activations, SELECT_V2 and SELECT, CAST and the quantize / dequantize pair.

The delegate accepts a constant operand as a scalar, a per-channel vector or an HWC tensor
(model_builder.cc ParseInputsWithConstTensorImpl); here every constant is uploaded as a tensor and
read through the same broadcast, which covers all three.
"""

from __future__ import annotations

from gpucompat.ir import Op, Tensor
from gpucompat.opencl import functions
from gpucompat.opencl.executor import Executor, Step
from gpucompat.opencl.fusion import Link
from gpucompat.opencl.ops.registry import activation, lowering
from gpucompat.opencl.phwc4 import bhwc
from gpucompat.opencl.runtime import GpuTensor

UNARY = functions.UNARY_OPS  # one-input ops -> their function (opencl/functions.py)
BINARY = {op: functions.binary(op) for op in functions.BINARY_FUNCTIONS}  # two-input ops -> their code


def unary_code(op: Op) -> tuple[int, float]:
    """(function code, alpha) of a one-input op; CAST truncates toward zero into integers and maps
    non-zero to 1 into bool."""
    function = UNARY[op.name]
    out = op.outputs[0]
    if op.name == "CAST" and out.dtype_name.startswith(("INT", "UINT")):
        function = "CAST_TO_INT"
    elif op.name == "CAST" and out.dtype_name == "BOOL":
        function = "CAST_TO_BOOL"
    return functions.unary(function), float(getattr(op.options, "alpha", 0.0) or 0.0)


@lowering(*UNARY)
def unary(ex: Executor, op: Op) -> Step:
    """A one-input elementwise op, broadcast to the output's rank."""
    out = op.outputs[0]
    fn, alpha = unary_code(op)
    src, sd = ex.tensor_as(op.inputs[0], len(out.shape))
    dst = ex.tensor(out)
    od = ex.shape(out).dims
    return ex.prepare("elementwise", "unary_op", ex.cells(out), src, sd, dst, od, fn, alpha, 0)


@lowering(*BINARY)
def binary(ex: Executor, op: Op) -> Step:
    """Two-input ops; either input may be constant; inputs broadcast like numpy."""
    out = op.outputs[0]
    rank = len(out.shape)
    a, ad = ex.tensor_as(op.inputs[0], rank)
    b, bd = ex.tensor_as(op.inputs[1], rank)
    dst, od = ex.tensor(out), ex.shape(out).dims
    fn, act = BINARY[op.name], activation(op)
    return ex.prepare("elementwise", "binary_op", ex.cells(out), a, ad, b, bd, dst, od, fn, act)


@lowering("ADD_N")
def add_n(ex: Executor, op: Op) -> Step:
    """The sum of N same-shaped inputs: the first two added into the output, then each further
    input added to it in place (every work-item reads and writes its own cell)."""
    from gpucompat.opencl.ops.registry import sequence

    out = op.outputs[0]
    rank = len(out.shape)
    dst, od = ex.tensor(out), ex.shape(out).dims
    first, *rest = op.inputs
    steps, acc = [], ex.tensor_as(first, rank)
    for t in rest:
        steps.append(ex.prepare("elementwise", "binary_op", ex.cells(out), *acc, *ex.tensor_as(t, rank), dst, od,
                                BINARY["ADD"], 0))
        acc = (dst, od)
    return sequence(steps)


@lowering("SELECT_V2", "SELECT")
def select(ex: Executor, op: Op) -> Step:
    """cond ? x : y with every operand broadcast to the output. SELECT (v1) with a rank-1
    condition and operands of higher rank picks whole rows along the first dimension
    (kernels/select.cc): the condition is read as [N, 1, ..., 1]."""
    out = op.outputs[0]
    rank = len(out.shape)
    cond = op.inputs[0]
    if op.name == "SELECT" and len(cond.shape) == 1 and rank > 1:
        condition = _rows(ex, cond, rank)
    else:
        condition = ex.tensor_as(cond, rank)
    args = [*condition, *(x for t in op.inputs[1:3] for x in ex.tensor_as(t, rank))]
    dst, od = ex.tensor(out), ex.shape(out).dims
    return ex.prepare("elementwise", "select_op", ex.cells(out), *args, dst, od)


def _rows(ex: Executor, t: Tensor, rank: int) -> tuple[GpuTensor, tuple[int, int, int, int]]:
    """A rank-1 tensor [N] seen as [N, 1, ..., 1] of `rank`, with its BHWC dims: a constant is
    uploaded in that shape, a runtime tensor re-laid out by a reshape queued before the op."""
    from gpucompat.opencl.ops.movement import reshape_step

    shape = bhwc((t.shape[0],) + (1,) * (rank - 1))
    value = ex.value(t)
    if value is not None:
        return ex.runtime.upload(value, shape), shape.dims
    view = ex.runtime.empty(shape)
    ex.pending.append(reshape_step(ex, ex.tensor(t), view))
    return view, shape.dims


def link(ex: Executor, op: Op, carried: Tensor) -> Link:
    """A one- or two-input op as a link in a fused kernel (linked.cl's math on the running value,
    the value of `carried`; the other operand broadcast as in binary_op). `carried` is the op's
    first input, or its second when the op is linked into that input's producer (fusion._next_link):
    the other input is then the first operand, unless the function is commutative: the running value
    then comes first all the same, so that both ways of linking an ADD make one epilogue (one
    kernel variant to compile)."""
    if op.name in UNARY:
        fn, alpha = unary_code(op)
        return Link(f"unary(VALUE, {fn}, {alpha!r}f)")
    first = op.inputs[0] is carried
    operand = ex.tensor_as(op.inputs[1 if first else 0], len(op.outputs[0].shape))
    a, b = ("VALUE", "OPERAND") if first or op.name in functions.COMMUTATIVE else ("OPERAND", "VALUE")
    return Link(f"activate(binary({a}, {b}, {BINARY[op.name]}), {activation(op)})", operand)
