"""EXP of logits without max-subtraction may overflow fp16.

## What it finds
Without inputs: GPU-placed EXP ops whose input is not x - max(x) (softmax written out, or softmax_1
with its extra 1) and may pass ln(65504) = 11.09, or ln(65504 / N) where a SUM / MEAN of the EXP's
output adds up N of them. What may pass it is found from the ops alone (gpucompat/static_bounds.py):
the input's upper bound, walked back through constants, clamps (MINIMUM / MAXIMUM, RELU, RELU6,
RELU_N1_TO_1, fused activations), LOGISTIC and TANH, squares and ABS (never negative), NEG, ADD /
SUB / MUL, and ops that only move values (RESHAPE, TRANSPOSE, SLICE, CONCATENATION...); any other op
or a model input leaves it unbounded. So EXP(-|x|) (stable softplus), EXP(-x²) and EXP(-0.5 x²)
(Gaussian), EXP(MINIMUM(x, 0)) (ELU written out), EXP(MINIMUM(x, 4.135)) (a box decoder's clip) and
EXP(TANH(x)) are not flagged; EXP(MINIMUM(x, 20)), EXP(-x) and EXP(RELU6(x)) summed over 256 are.
x - max(x) is SUB(z, m) or ADD(z, NEG(m)), m the
REDUCE_MAX of z with its axes kept, or dropped and put back as 1s by a RESHAPE / EXPAND_DIMS. Data
would confirm a finding: `gpucompat check MODEL --inputs data.npz` (PREC403).

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

import math

from gpucompat import fp16_patterns
from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.precision.fp16 import FP16_MAX, described, gpu_ops


@rule("PREC407", name="fp16-exp-without-max", severity="warning", uses_analyses=True)
def unguarded_exp(result, analyses) -> list[Finding]:
    """PREC407 per GPU EXP without max-subtraction whose input may pass ln(65504 / N), when no inputs were given."""
    if analyses.value_ranges is not None:
        return []
    exps = fp16_patterns.unguarded_exps(analyses.model.graphs[0], FP16_MAX)
    gpu = gpu_ops(result) if exps else {}
    return [Finding("PREC407", "warning",
                    f"{described(e.exp)} takes logits without max-subtraction{_reaching(e.upper)}: past "
                    f"{e.limit:.2f} {_what(e.summed)} overflows fp16; data would confirm it "
                    f"(gpucompat check --inputs data.npz)", ((0, e.exp.index),))
            for e in exps if e.exp.index in gpu]


def _reaching(upper: float) -> str:
    return "" if math.isinf(upper) else f" (at most {upper:.3g}, by the ops before it)"


def _what(summed: int) -> str:
    return "exp" if summed == 1 else f"a sum of {summed} exps"
