"""Adreno: a DEPTH_TO_SPACE with batch above 1 gets an OpenCL kernel the driver cannot build (reported).

## What it finds
A delegated DEPTH_TO_SPACE whose input has a batch above 1.

## Why it matters on the GPU
On Adreno 620 (Pixel 5, native Qualcomm OpenCL; LiteRT 2.1.3 to 2.1.6, ML Drift OpenCL) the generated kernel
source carries a stray string fragment, clBuildProgram fails and CompiledModel initialisation fails. Batch 1
works. Reported, not measured here.

## Example
DEPTH_TO_SPACE (block 2) of a [4, 32, 32, 16] tensor.

## How to fix
Export with batch 1 and loop over the batch in the app, or move the batch into the width (reshape) around the op
in the source model. Check on the device.

## Fix safety
Not applicable: a report, not a rewrite.

## References
https://github.com/google-ai-edge/LiteRT/issues/8459
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.device_reports.families import finding, for_families, gpu_ops, node


@rule("DEV602", name="adreno-batched-depth-to-space", severity="warning", uses_analyses=True)
@for_families("adreno")
def batched_depth_to_space(result, analyses) -> list[Finding]:
    """DEV602 per delegated DEPTH_TO_SPACE with a batch above 1."""
    return [finding("DEV602", ("adreno",),
                    f"subgraph {op.graph.index} op#{op.index} DEPTH_TO_SPACE of batch {op.input(0).shape[0]}: the "
                    f"accelerator emits OpenCL source the driver cannot build",
                    "LiteRT#8459", (node(op),))
            for op in gpu_ops(result, analyses, "DEPTH_TO_SPACE")
            if op.input(0) is not None and op.input(0).rank == 4 and op.input(0).shape[0] > 1]
