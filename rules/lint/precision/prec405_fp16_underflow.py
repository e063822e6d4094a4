"""On the given inputs, a GPU op's values are all below 6e-8: 0 at fp16.

## What it finds
GPU-placed ops whose output, on the inputs given to `check --inputs`, is nonzero but never above
6e-8 in magnitude: every value rounds to 0 in fp16.

## Why it matters on the GPU
The smallest fp16 value is 5.96e-8 (a subnormal); anything below half of it is stored as 0, and
devices that flush subnormals lose everything below 6.1e-5. A tensor that is all zeros at fp16
turns a later DIV into inf, a LOG into -inf, and a normalisation into NaN.

## Example
A variance of values around 1e-5: 1e-10 in fp32, 0 in fp16.

## How to fix
Scale the values up before the op (and back after), or run at fp32 precision.

## Fix safety
Not applicable.

## References
IEEE 754 binary16 (subnormals); tflite/delegates/gpu/common/precision.h.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.precision.fp16 import FP16_TINY, described, observed_gpu_ops


def _absorbed(t, r, ranges) -> bool:
    """True when every reader of `t` adds it to values so much larger that it is below their
    rounding step anyway (an epsilon added to a variance), directly or after MUL / DIV steps that
    keep it tiny: its flush to 0 changes nothing."""
    def smallest_magnitude(s) -> float:
        return s.minimum if s.minimum > 0 else (-s.maximum if s.maximum < 0 else 0.0)

    def absorbed_by(c) -> bool:
        out = ranges.get(c.outputs[0].index) if c.outputs else None
        if out is None:
            return False
        if c.name == "ADD":
            return smallest_magnitude(out) > 2048 * r.absmax
        return c.name in ("MUL", "DIV") and out.absmax < FP16_TINY and _absorbed(c.outputs[0], out, ranges)

    return bool(t.consumers) and all(absorbed_by(c) for c in t.consumers)


@rule("PREC405", name="fp16-underflow", severity="warning", uses_analyses=True)
def underflow(result, analyses) -> list[Finding]:
    """PREC405 per GPU op output that is all below fp16's smallest value on the inputs, unless absorbed."""
    out = []
    for op, ranges in observed_gpu_ops(result, analyses):
        index = op.index
        for t in op.outputs:
            r = ranges.get(t.index)
            if r is not None and 0.0 < r.absmax < FP16_TINY and not _absorbed(t, r, ranges):
                out.append(Finding("PREC405", "warning",
                                   f"{described(op)} is never above {r.absmax:.3g} in magnitude on the inputs: "
                                   f"every value is 0 in fp16 (below 6e-8)", ((0, index),)))
    return out
