"""A delegated SOFTMAX reads an attention mask filled with -inf, which LiteRT's GPU accelerator turns into NaN rows.

## What it finds
A SOFTMAX the delegate takes whose input is built from a constant holding -inf (a causal or
sliding-window attention mask: SELECT_V2(keep, 0, -inf), then MINIMUM / ADD onto the scores), under
a profile of LiteRT's GPU accelerator.

## Why it matters on the GPU
The accelerator computes a whole SOFTMAX row as NaN when the row's first four elements (its first
4-channel slice) are all -inf: every query whose mask hides the first keys (a sliding window past
its width, a prefill past the first positions). Measured on ai-edge-litert 2.3.0 at fp32 and fp16:
[1, 1, 32, 64] with columns 0-3 at -inf gives all 32 rows NaN; -inf elsewhere in the row, or a
finite fill, is right. The CPU never sees the infinity: its ADD clamps to the float range. Found
on litert-torch's Gemma 3, whose second block's KV cache and logits come out NaN.

## Example
Gemma 3 (litert-torch 0.10.0) prefill at positions 33-40 with a sliding window of 32: 24 of the 32
score rows of the first block are NaN after its SOFTMAX.

## How to fix
`gpucompat fix` (finite-mask-fill) stores the fill as -30000 instead: exp(-30000 - max) is 0 in
float32 and in half, so the probabilities are the same, and the value survives fp16. In the
model's code: fill the mask with a large finite negative (torch.finfo(dtype).min is -inf-like in
half; -30000 is not).

## Fix safety
Equivalent: the masked probabilities are exactly 0 either way unless a score is within 30000 of
the fill.

## References
Observed on ai-edge-litert 2.3.0's GPU accelerator (docs/fidelity.md); tflite/kernels/add.cc
(activation range lowest() .. max() clamps the CPU's sum).
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.support.masks import infinite_fills


@rule("PREC410", name="softmax-of-infinite-mask", severity="error", fix="finite-mask-fill", uses_analyses=True)
def softmax_of_infinite_mask(result, analyses) -> list[Finding]:
    """PREC410 per delegated SOFTMAX fed by a -inf mask, under the accelerator's profiles."""
    if result.profile.release is None:
        return []
    out = []
    for o in result.ops:
        if o.op != "SOFTMAX" or o.placement != "gpu":
            continue
        op = analyses.model.graphs[o.subgraph].ops[o.index]
        fills = infinite_fills(op)
        if fills:
            out.append(Finding("PREC410", "error",
                               f"subgraph {o.subgraph} op#{o.index} SOFTMAX reads a mask filled with -inf "
                               f"({fills[0][0].name!r}): LiteRT's GPU accelerator computes a row whose first four "
                               f"elements are -inf as NaN", ((o.subgraph, o.index),)))
    return out
