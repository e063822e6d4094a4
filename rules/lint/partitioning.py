"""PRT family: how the graph splits and which partitions the delegate leaves on the CPU."""

from __future__ import annotations

from gpucompat.rules.lint import Finding, Rule

DROPPED_DOC = """\
## What it finds
Supported ops left on the CPU because their partition is not among the `max_delegated_partitions`
largest (default 1) that the delegate takes.

## Why it matters on the GPU
The runtime delegates only the largest partitions by node count; every other GPU-capable island
runs on the CPU, and the app pays for a CPU<->GPU round trip on top.

## Example
Three GPU islands of 12, 5 and 3 ops: only the 12-op island runs on the GPU.

## How to fix
Remove the ops that split the graph (see GPU001 and the what-if list), or raise
`max_delegated_partitions` in the delegate options and measure: more partitions mean more
round trips.

## Fix safety
Not applicable.

## References
tflite/delegates/utils.cc GetFirstNLargestPartitions; tflite/delegates/gpu/delegate_options.cc.
"""

SPLIT_DOC = """\
## What it finds
A subgraph that the runtime splits into more than one partition ("yielding N partitions").

## Why it matters on the GPU
Each delegated partition is a synchronous CPU<->GPU round trip per inference; a split graph is
often slower than running everything on the CPU.

## Example
`Replacing 4 out of 7 node(s) with delegate (TfLiteGpuDelegateV2) node, yielding 3 partitions`.

## How to fix
Make the ops between the GPU islands supported (see GPU001).

## Fix safety
Not applicable.

## References
tflite/core/subgraph.cc ReplaceNodeSubsetsWithDelegateKernels.
"""


def _dropped(result, analyses) -> list[Finding]:
    out = []
    if result.delegation_fails:
        return out
    for s in result.subgraphs:
        if s.gate:
            continue
        for i, subset in enumerate(s.subsets):
            if subset.delegated_type and i not in s.delegated:
                out.append(Finding(
                    "PRT101", "error",
                    f"subgraph {s.index}: a GPU-capable partition of {subset.size} op(s) stays on the CPU "
                    f"(only the {max(result.options.max_delegated_partitions, 1)} largest are delegated)",
                    tuple((s.index, n) for n in subset.nodes)))
    return out


def _split(result, analyses) -> list[Finding]:
    return [Finding("PRT102", "warning",
                    f"subgraph {s.index}: {s.replaced} of {s.ops_total} ops delegated, "
                    f"yielding {s.partitions_after_replace} partitions (CPU and GPU)")
            for s in result.subgraphs
            if not result.delegation_fails and s.partitions_after_replace > 1]


RULES = [
    Rule("PRT101", "dropped-partition", "error",
         "A GPU-capable partition stays on the CPU because only the largest are delegated.", DROPPED_DOC, _dropped),
    Rule("PRT102", "partition-split", "warning", "The delegated graph is split into several partitions.",
         SPLIT_DOC, _split),
]
