"""Reusable predicates that profiles compose. Each mirrors a helper of the runtime's checks
(tflite/tools/versioning/gpu_compatibility.cc, delegates/gpu/common/model_builder*.cc) and
returns a Verdict. A predicate factory returns a Check: (op, options) -> Verdict."""

from __future__ import annotations

from gpucompat.ir import Op, Tensor
from gpucompat.rules.context import Context
from gpucompat.rules.profile import Check
from gpucompat.rules.verdict import ACCEPT, Layer, Verdict, reject

# TfLiteFusedActivation values (schema ActivationFunctionType)
ACTIVATION_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT", 6: "SIGMOID"}


def runtime_inputs(op: Op, ctx: Context) -> list[Tensor]:
    """Inputs that are neither constant nor optional (GetNumberOfRuntimeInputsForNode)."""
    return [t for t in op.inputs if t is not None and not ctx.is_const(t)]


def const_inputs(op: Op, ctx: Context) -> list[Tensor]:
    """Constant inputs (kTfLiteMmapRo at runtime: tensors with data in the file)."""
    return [t for t in op.inputs if t is not None and ctx.is_const(t)]


def io_counts(runtime: int | tuple[int, ...], outputs: int | None = 1, const: int | None = None) -> Check:
    """CheckInputsOutputs / CheckInputsConstsOutputs: the number of runtime inputs (one of
    `runtime`), of constant inputs (when given) and of outputs (when given)."""
    allowed = (runtime,) if isinstance(runtime, int) else runtime

    def check(op: Op, ctx: Context) -> Verdict:
        n = len(runtime_inputs(op, ctx))
        if n not in allowed:
            want = " or ".join(map(str, allowed))
            return reject(f"needs {want} runtime (non-constant) input(s), has {n}",
                          runtime_message=f"Expected {want} runtime input tensor(s), but node has {n} runtime input(s).")
        if const is not None and len(const_inputs(op, ctx)) != const:
            c = len(const_inputs(op, ctx))
            return reject(f"needs {const} constant input(s), has {c}",
                          runtime_message=f"Expected {const} const input tensor(s), but node has {c} const input(s).")
        if outputs is not None and len(op.outputs) != outputs:
            return reject(f"needs {outputs} output(s), has {len(op.outputs)}",
                          runtime_message=f"Expected {outputs} output tensor(s), but node has {len(op.outputs)} output(s).")
        return ACCEPT

    return check


def one_or_two_operands(op: Op, ctx: Context) -> Verdict:
    """Two-argument elementwise ops: (2 runtime, 0 const) or (1 runtime, 1 const), 1 output."""
    r, c = len(runtime_inputs(op, ctx)), len(const_inputs(op, ctx))
    if (r, c) in ((2, 0), (1, 1)) and len(op.outputs) == 1:
        return ACCEPT
    return reject(f"needs 2 runtime inputs or 1 runtime + 1 constant input, has {r} runtime + {c} constant",
                  runtime_message="Op can only handle 1 or 2 operand(s).")


def fused_activation(allowed: tuple[int, ...] = (0, 1, 2, 3, 4, 6), layer: Layer = "partition") -> Check:
    """IsActivationSupported: the op's fused activation must be one the delegate can append."""

    def check(op: Op, ctx: Context) -> Verdict:
        act = getattr(op.options, "fusedActivationFunction", 0) or 0
        if act in allowed:
            return ACCEPT
        name = ACTIVATION_NAMES.get(act, str(act))
        return reject(f"fused activation {name} is not supported", layer,
                      runtime_message="Unsupported fused activation")

    return check


def positive_params(*names: str) -> Check:
    """Named option fields (strides, dilations, filter sizes) must be > 0."""

    def check(op: Op, ctx: Context) -> Verdict:
        for n in names:
            v = getattr(op.options, n, None)
            if v is not None and v <= 0:
                return reject(f"{n} must be positive, is {v}")
        return ACCEPT

    return check


def max_input_rank(rank: int, inputs: tuple[int, ...] = (0,)) -> Check:
    """Given inputs must have at most `rank` dimensions."""

    def check(op: Op, ctx: Context) -> Verdict:
        for i in inputs:
            t = op.input(i)
            if t is not None and t.rank > rank:
                return reject(f"input {i} has rank {t.rank}, at most {rank} is supported")
        return ACCEPT

    return check


def identical_inputs(layer: Layer = "parse") -> Check:
    """Two-input ops whose two inputs are the same tensor: the parser refuses them ("No support
    of few identical inputs in the same operation."), which aborts the whole delegation."""

    def check(op: Op, ctx: Context) -> Verdict:
        ins = op.present_inputs
        if len(ins) >= 2 and ins[0] is ins[1]:
            return reject("both inputs are the same tensor", layer,
                          runtime_message="No support of few identical inputs in the same operation.")
        return ACCEPT

    return check


def const_input(index: int, what: str, layer: Layer = "partition") -> Check:
    """Input `index` must be a constant (axes, paddings, shapes, sizes read at Parse)."""

    def check(op: Op, ctx: Context) -> Verdict:
        t = op.input(index)
        if t is not None and not ctx.is_const(t):
            return reject(f"{what} (input {index}) must be constant", layer)
        return ACCEPT

    return check


def requires_options(op: Op, ctx: Context) -> Verdict:
    """The op must carry its builtin options (the parser reads them)."""
    if op.options is None:
        return reject("builtin options are missing", runtime_message="Unable to retrieve builtin_data.")
    return ACCEPT
