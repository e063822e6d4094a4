"""A GPU-capable partition stays on the CPU because only the largest are delegated.

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

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("PRT101", name="dropped-partition", severity="error")
def dropped(result, analyses) -> list[Finding]:
    """PRT101 per GPU-capable partition left out of the N largest."""
    out = []
    if result.delegation_fails:
        return out
    kinds = {(o.subgraph, o.index): o.op for o in result.ops}  # op types, looked up once for every partition
    for s in result.subgraphs:
        if s.gate:
            continue
        for i, subset in enumerate(s.subsets):
            if subset.delegated_type and i not in s.delegated:
                out.append(Finding(
                    "PRT101", "error",
                    f"subgraph {s.index}: GPU-capable partition [{i}] of {subset.size} op(s) "
                    f"({_named(kinds, s.index, subset.nodes)}) stays on the CPU "
                    f"(only the {max(result.options.max_delegated_partitions, 1)} largest are delegated)",
                    tuple((s.index, n) for n in subset.nodes)))
    return out


def _named(kinds: dict[tuple[int, int], str], subgraph: int, nodes: list[int]) -> str:
    """The partition's ops as a person finds them: `#58 FULLY_CONNECTED`, or the span and the
    first op types of a longer one (`#12-#40: CONV_2D, ADD, ...`)."""
    if len(nodes) == 1:
        return f"#{nodes[0]} {kinds[subgraph, nodes[0]]}"
    types = list(dict.fromkeys(kinds[subgraph, n] for n in nodes))
    more = ", ..." if len(types) > 3 else ""
    return f"#{min(nodes)}-#{max(nodes)}: {', '.join(types[:3])}{more}"
