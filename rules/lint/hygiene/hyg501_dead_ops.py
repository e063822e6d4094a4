"""Ops whose outputs reach no model output still run.

## What it finds
Ops none of whose outputs reach a model output (directly or through other ops), and that have no
side effect.

## Why it matters on the GPU
The interpreter runs every op of the execution plan, used or not; dead ops still take CPU or GPU
time, split partitions when they are unsupported, and count toward partition sizes.

## Example
A debugging branch left in the graph after export: `MEAN` of an activation that nothing reads.

## How to fix
Remove the branch in the source model before conversion.

## Fix safety
Not applicable.

## References
tflite/core/subgraph.cc (Invoke runs the whole execution plan).
"""

from __future__ import annotations

from gpucompat.ir.graph import live_ops
from gpucompat.rules.lint import Finding, rule


@rule("HYG501", name="dead-ops", severity="warning", uses_analyses=True)
def dead(result, analyses) -> list[Finding]:
    """HYG501 per subgraph with ops whose outputs reach no model output."""
    out = []
    for g in analyses.model.graphs:
        live = live_ops(g)  # the same liveness Graph.cleanup() uses
        dead = [op for op in g.ops if id(op) not in live]
        if dead:
            names = sorted({op.name for op in dead})
            out.append(Finding("HYG501", "warning",
                               f"subgraph {g.index}: {len(dead)} op(s) whose outputs are never used "
                               f"({', '.join(names)})", tuple((g.index, op.index) for op in dead)))
    return out
