"""Constant fp16 weights read through DEQUANTIZE: read directly by the delegate, they hold nothing back.

## What it finds
Constant fp16 weights read through DEQUANTIZE nodes (what the converter writes for float16
quantization, and for Keras fp16 exports).

## Why it matters on the GPU
It costs nothing. The delegate's FP16 partition helper leaves these DEQUANTIZE nodes out of the
partitioning and lets their consumers read the fp16 constants directly. When every other op of
the subgraph is supported, the DEQUANTIZE nodes are delegated with the graph in one kernel;
otherwise they stay on the CPU, where each runs once (the kernel dequantizes a constant input a
single time) and holds no delegated op back. In that case the runtime lists DEQUANTIZE among the
ops it does not support, with no reason, and `check` lists it the same way.

## Example
`DEQUANTIZE(conv_weights_fp16) -> CONV_2D`: both run in the GPU kernel of a fully supported model.

## How to fix
Nothing to fix. `gpucompat fix` folds them into float32 constants if a tool downstream needs it.

## Fix safety
Not applicable.

## References
tflite/delegates/utils.cc FP16GraphPartitionHelper (IsNodeSupported,
GetNodesOfFirstNLargestPartitionsImpl); tflite/kernels/dequantize.cc.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("GPU004", name="fp16-weights", severity="info")
def fp16_weights(result, analyses) -> list[Finding]:
    """GPU004 per subgraph with constant fp16 DEQUANTIZE nodes, and where they run."""
    out = []
    for s in result.subgraphs:
        nodes = tuple((s.index, i) for i in s.fp16_dequantize)
        if not nodes:
            continue
        on_gpu = sum(1 for o in result.ops if o.subgraph == s.index and o.index in s.fp16_dequantize
                     and o.placement == "gpu")
        where = ("delegated with the graph" if on_gpu == len(nodes) else
                 "left on the CPU because not every other op is supported; each runs once and holds no "
                 "delegated op back")
        out.append(Finding("GPU004", "info",
                           f"subgraph {s.index}: {len(nodes)} constant fp16 DEQUANTIZE node(s) feed fp16 weights; "
                           f"the delegate reads those weights directly, and the nodes are {where}", nodes))
    return out
