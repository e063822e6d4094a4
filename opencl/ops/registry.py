"""The lowering registry and what every lowering reads from an op: each family module
(opencl/ops/<family>.py) registers, per TFLite op name, a function that turns an op into a step
(its kernel launches, bound to device tensors) at load time. opencl/lowering.py picks from it."""

from __future__ import annotations

import struct
from collections.abc import Callable

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp

LOWERINGS: dict[str, Callable[[Executor, Op], Step]] = {}


def lowering(*names: str):
    """Register a lowering for the TFLite ops `names`."""

    def wrap(fn):
        for n in names:
            LOWERINGS[n] = fn
        return fn

    return wrap


class _ZeroParams:
    """The params the runtime gives an op whose options table is absent: flatbuffer_conversions.cc
    allocates them value-initialised and fills them only from builtin_options_as_<Table>(), so
    every field reads 0 / false. (A table of another type is refused by the IR reader.)"""

    def __getattr__(self, name: str) -> int:
        return 0


def options(op: Op):
    """The op's options as the runtime parses them: its record, or all-zero params without one."""
    return op.options if op.options is not None else _ZeroParams()


def activation(op: Op) -> int:
    """The op's fused activation (0 when it has none); SIGN_BIT has no kernel, as in the delegate
    (gpu_compatibility.cc IsActivationSupported)."""
    act = getattr(op.options, "fusedActivationFunction", 0) or 0
    if act == 5:
        raise UnsupportedOp(f"op#{op.index} {op.name}: fused activation SIGN_BIT is not supported")
    return int(act)


def custom_params(op: Op, count: int) -> tuple[int, ...]:
    """The first `count` int32 fields of a MediaPipe op's custom_initial_data (a raw C struct:
    TfLiteTransposeConvParams, TfLitePoolParams), as the delegate reads them."""
    raw = op.custom_options
    if len(raw) < 4 * count:
        raise UnsupportedOp(f"op#{op.index} {op.name}: custom options (the op's parameters) are missing")
    return struct.unpack_from(f"<{count}i", raw)


TFLITE_PADDING_SAME = 1  # TfLitePadding (c/builtin_op_data.h): 0 unknown, 1 SAME, 2 VALID


def sequence(steps: list[Step]) -> Step:
    """One step running `steps` in order."""
    if len(steps) == 1:
        return steps[0]

    def run() -> None:
        for s in steps:
            s()

    return run
