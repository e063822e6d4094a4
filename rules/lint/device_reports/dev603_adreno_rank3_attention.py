"""Adreno: attention computed at rank 3 is miscomputed where rank 4 is right (reported).

## What it finds
A delegated SOFTMAX over attention scores that a BATCH_MATMUL computes on rank-3 tensors ([heads, queries,
dim]), possibly through a scale or a mask.

## Why it matters on the GPU
On Adreno 740 and 830 (Galaxy S23 and S25; the classic GPU delegate on OpenCL, LiteRT 1.4.5) SAM 2.1's mask
decoder with rank-3 attention is silently miscomputed (correlation 0.265 with the CPU); the same decoder with
the attention at rank 4 ([1, heads, queries, dim]) tracks the CPU. Reported, not measured here.

## Example
BATCH_MATMUL [8, 64, 32] x [8, 32, 64] -> MUL by 1/sqrt(32) -> SOFTMAX.

## How to fix
Write the attention at rank 4 in the source model (keep a leading batch of 1 through the matmuls and the
softmax); gpucompat has no rewrite for it yet. Check on the device.

## Fix safety
Not applicable: a report, not a rewrite.

## References
https://github.com/google-ai-edge/LiteRT/issues/8619
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.device_reports.attention import attention
from gpucompat.rules.lint.device_reports.families import finding, for_families, node


@rule("DEV603", name="adreno-rank3-attention", severity="warning", uses_analyses=True)
@for_families("adreno")
def rank3_attention(result, analyses) -> list[Finding]:
    """DEV603 per rank-3 BATCH_MATMUL whose scores reach a delegated SOFTMAX."""
    return [finding("DEV603", ("adreno",),
                    f"subgraph {mm.graph.index} op#{mm.index} BATCH_MATMUL -> op#{sm.index} SOFTMAX: attention at "
                    f"rank 3 {list(mm.input(0).shape)}, miscomputed on Adreno 740 and 830 where the same attention at "
                    f"rank 4 tracks the CPU", "LiteRT#8619", (node(mm), node(sm)))
            for mm, sm in attention(result, analyses, rank3=True)]
