"""On the given inputs, a SUM / MEAN's partial sums pass 65504.

## What it finds
GPU-placed SUM / MEAN ops whose partial sums, on the inputs given to `check --inputs`, can go past
65504 although the result stays within fp16: the sum of |x| over the reduced axes is that large.

## Why it matters on the GPU
A reduction that accumulates in half (F16 calculation precision) overflows to inf midway; one
that accumulates in float (F32_F16, as the executor does) and stores the result as half is right.
Which one a device uses depends on the GPU and the delegate's precision mode.

## Example
MEAN over 768 channels of values around 100: partial sums reach 76800.

## How to fix
Scale the values down before the reduction, or reduce in chunks; or run at fp32 precision.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/precision.h (F16 vs F32_F16); tasks/reduce.cc.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.precision.fp16 import FP16_MAX, described, observed_gpu_ops


@rule("PREC404", name="fp16-accumulation", severity="warning", uses_analyses=True)
def accumulation(result, analyses) -> list[Finding]:
    """PREC404 per GPU SUM / MEAN whose partial sums, not its result, pass fp16's range on the inputs."""
    out = []
    for op, ranges in observed_gpu_ops(result, analyses):
        index = op.index
        r = ranges.get(op.outputs[0].index) if op.outputs else None
        x = ranges.get(op.present_inputs[0].index)
        if r is not None and r.accumulated is not None and r.accumulated > FP16_MAX >= r.absmax \
                and (x is None or x.absmax <= FP16_MAX):  # else PREC403 names where it starts
            out.append(Finding("PREC404", "warning",
                               f"{described(op)} adds up to {r.accumulated:.3g} in |x| before its result "
                               f"({r.absmax:.3g}): a GPU accumulating in half overflows past 65504",
                               ((0, index),)))
    return out
