"""An op the GPU delegate rejects runs on the CPU.

## What it finds
Ops the delegate rejects when it partitions the graph (no GPU implementation, a version above the
parser's cap, an unsupported parameter, or a runtime tensor type the GPU does not take).

## Why it matters on the GPU
A rejected op runs on the CPU. It splits the graph: every split costs a synchronous CPU<->GPU
round trip per inference, and with the default `max_delegated_partitions=1` only the largest GPU
partition is delegated at all.

## Example
`GATHER_ND` between two convolutions: `op code #107 GATHER_ND: Operation is not supported.`

## How to fix
Replace the op with supported ones in the source model, or run `gpucompat fix`, which substitutes
equivalents where one exists. `gpucompat check` prints what accepting each rejected op would gain.

## Fix safety
Depends on the rewrite; see `gpucompat fix --dry-run`.

## References
tflite/delegates/gpu/common/model_builder.cc (GetOpsToReplace, IsAllAllowedTensors);
tflite/tools/versioning/gpu_compatibility.cc.
"""

from __future__ import annotations

from collections import defaultdict

from gpucompat.rules.lint import Finding, rule


@rule("GPU001", name="unsupported-op", severity="error")
def unsupported(result, analyses) -> list[Finding]:
    """GPU001 per (op, op code, reason): the ops rejected when the graph is partitioned."""
    groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for o in result.ops:
        v = o.verdict
        if not v.ok and v.layer == "partition":
            groups[(o.op, o.opcode, v.reason)].append((o.subgraph, o.index))
    return [Finding("GPU001", "error", f"op code #{code} {op}: {reason} ({len(nodes)} op(s) run on the CPU)",
                    tuple(nodes))
            for (op, code, reason), nodes in groups.items()]
