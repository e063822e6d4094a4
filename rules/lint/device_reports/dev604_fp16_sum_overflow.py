"""A long SUM accumulates in fp16 on ML Drift; totals past 65504 become inf, then NaN (reported).

## What it finds
A delegated SUM that adds 1,024 or more elements into each output (the same size PREC408's calibrated form calls
long).

## Why it matters on the GPU
ML Drift's SUM accumulates in fp16 at the default precision: EfficientNet's squeeze-and-excite pooling (SUM over
H x W) returned all-NaN classifiers on Apple M4 Max and iPhone 17 Pro (LiteRT 2.1.5, Metal) while the CPU was
right. Whether a given model overflows depends on its values: `gpucompat check --inputs` (PREC404) and
`gpucompat verify --precision fp16` tell on your data.

## Example
SUM over axes 1 and 2 of [1, 112, 112, 32] activations around 5.

## How to fix
Use MEAN (or scale before the SUM) in the source model, or run with fp32 activations (GpuOptions(enforce_f32=True)).

## Fix safety
Not applicable: a report, not a rewrite.

## References
https://github.com/google-ai-edge/LiteRT/issues/9249
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.device_reports.families import FAMILIES, finding, for_families, gpu_ops, node
from gpucompat.rules.support.forms import LONG_REDUCTION, reduced_elements


@rule("DEV604", name="fp16-sum-overflow", severity="warning", uses_analyses=True)
@for_families(*FAMILIES)
def long_sum(result, analyses) -> list[Finding]:
    """DEV604 per delegated SUM adding LONG_REDUCTION or more elements into each output."""
    out = []
    for op in gpu_ops(result, analyses, "SUM"):
        n = reduced_elements(op)
        if n >= LONG_REDUCTION:
            out.append(finding("DEV604", FAMILIES,
                               f"subgraph {op.graph.index} op#{op.index} SUM adds {n} elements into each output in "
                               f"fp16: a total past 65504 becomes inf, then NaN downstream",
                               "LiteRT#9249", (node(op),)))
    return out
