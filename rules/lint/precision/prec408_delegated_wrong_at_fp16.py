"""A delegated op in a form the real accelerator computes wrongly at its fp16 default.

## What it finds
An op that LiteRT's GPU accelerator computes right in fp32 but wrongly at its default precision
(fp16 storage and arithmetic), in a form the numerics calibration grid measured: a SUM over long
axes (1024 or more elements into each output) whose totals pass 65504, fp16's largest value.

## Why it matters on the GPU
The accelerator's default is fp16; a total past 65504 is off by thousands (13% of the largest
total on a SUM over [1, 112, 112, 32] with values 5-7) or infinite. The grid measures it with values that reach that
size: with small values the same op is right, so read the evidence against your data.

## Example
SUM over axes 1 and 2 of [1, 112, 112, 32] with values 5-7: wrong at fp16, exact at fp32.

## How to fix
Scale before the reduction (MEAN instead of SUM, or a MUL by 1/N before it), or run the model
with GpuOptions(enforce_f32=True). Check with `gpucompat verify MODEL --runner litert-gpu
--precision fp16`.

## Fix safety
Not applicable.

## References
rules/support/calibration/litert_gpu.json; gpucompat/calibrate/grid.py.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.calibrated_forms import wrong_findings


@rule("PREC408", name="delegated-wrong-at-fp16", severity="error", uses_analyses=True)
def wrong_at_fp16(result, analyses) -> list[Finding]:
    """PREC408 per delegated op whose form the calibration measured right at fp32, wrong at fp16."""
    return wrong_findings(result, analyses, "PREC408")
