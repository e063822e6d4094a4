"""The delegated graph is split into several partitions.

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

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("PRT102", name="partition-split", severity="warning")
def split(result, analyses) -> list[Finding]:
    """PRT102 per subgraph whose delegation yields more than one partition."""
    return [Finding("PRT102", "warning",
                    f"subgraph {s.index}: {s.replaced} of {s.ops_total} ops delegated, "
                    f"yielding {s.partitions_after_replace} partitions (CPU and GPU)")
            for s in result.subgraphs
            if not result.delegation_fails and s.partitions_after_replace > 1]
