"""Mali: an int8-weight FULLY_CONNECTED on a rank-3 input feeding ADD fails kernel creation (reported).

## What it finds
A delegated FULLY_CONNECTED with int8 (dynamic-range quantized) weights on a rank-3 float input whose output an
ADD reads: the residual `x + Linear(x)` of every transformer or conformer block quantized weight-only.

## Why it matters on the GPU
On Mali (Pixel 8a, Mali-G610; LiteRT 2.1.3 and 2.1.5, ML Drift OpenCL) kernel creation fails with "Unable to
parse bc coord for BATCH axis", and CompiledModel compilation fails as a whole. The same graph in float compiles
and runs. Reported, not measured here.

## Example
Linear(256 -> 256) on [1, 16, 256] with int8 channelwise weights, then `+ x`.

## How to fix
Keep the weights float (or fp16) for a Mali build, or run the FULLY_CONNECTED at rank 2 (reshape [1, T, C] to
[T, C] around it in the source model). Check on the device.

## Fix safety
Not applicable: a report, not a rewrite.

## References
https://github.com/google-ai-edge/LiteRT/issues/9277
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.device_reports.families import finding, for_families, gpu_ops, node


@rule("DEV601", name="mali-drq-fully-connected-add", severity="warning", uses_analyses=True)
@for_families("mali")
def drq_fully_connected_into_add(result, analyses) -> list[Finding]:
    """DEV601 per int8-weight FULLY_CONNECTED on a rank-3 input whose output an ADD reads."""
    out = []
    for op in gpu_ops(result, analyses, "FULLY_CONNECTED"):
        x, w = op.input(0), op.input(1)
        if x is None or w is None or x.rank != 3 or not x.dtype_name.startswith("FLOAT"):
            continue
        if w.dtype_name != "INT8" or not op.outputs:
            continue
        adds = [c for c in op.outputs[0].consumers if c.name == "ADD"]
        if adds:
            out.append(finding("DEV601", ("mali",),
                               f"subgraph {op.graph.index} op#{op.index} FULLY_CONNECTED with int8 weights on a "
                               f"rank-3 float input {list(x.shape)} feeds ADD op#{adds[0].index}: kernel creation "
                               f"fails and the whole GPU compilation with it",
                               "LiteRT#9277", (node(op), node(adds[0]))))
    return out
