"""EXP of logits without max-subtraction may overflow fp16.

## What it finds
Without inputs: GPU-placed EXP ops whose input is not x - max(x) (softmax written out, or softmax_1
with its extra 1). Data would confirm it: `gpucompat check MODEL --inputs data.npz` (PREC403).

## Why it matters on the GPU
exp(x) passes 65504 at x = 11.09: at fp16 the sum becomes inf and the quotient 0 or NaN. The
SOFTMAX op itself subtracts the row's max on the GPU (LiteRT's accelerator is right at fp16 with
logits of 60), so only the written-out forms are at risk.

## Example
`EXP -> SUM -> ADD(1) -> DIV` on attention logits of 20: NaN rows at fp16 on LiteRT's accelerator.

## How to fix
Subtract the row's REDUCE_MAX before the EXP (exact for a plain softmax), or use the SOFTMAX op.

## Fix safety
Not applicable.

## References
docs/precision.md.
"""

from __future__ import annotations

from gpucompat import fp16_patterns
from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.precision.fp16 import described, gpu_ops


@rule("PREC407", name="fp16-exp-without-max", severity="warning", uses_analyses=True)
def unguarded_exp(result, analyses) -> list[Finding]:
    """PREC407 per GPU EXP without max-subtraction, when no inputs were given."""
    if analyses.value_ranges is not None:
        return []
    exps = fp16_patterns.unguarded_exps(analyses.model.graphs[0])
    gpu = gpu_ops(result) if exps else {}
    return [Finding("PREC407", "warning",
                    f"{described(op)} takes logits without max-subtraction: past 11.09 exp overflows fp16; "
                    f"data would confirm it (gpucompat check --inputs data.npz)", ((0, op.index),))
            for op in exps if op.index in gpu]
