"""fp16's limits and the GPU ops the PREC rules look at, shared by the family's rules."""

from __future__ import annotations

FP16_MAX = 65504.0  # the largest finite half
FP16_TINY = 2.0 ** -24  # the smallest half subnormal (5.96e-8): half of it and below round to 0


def gpu_ops(result) -> dict[int, object]:
    """Main-subgraph op index -> its check entry, for the ops the GPU takes."""
    return {o.index: o for o in result.ops if o.subgraph == 0 and o.placement == "gpu"}


def described(op) -> str:
    """An op as a finding names it: `op#3 MEAN 'its output'`."""
    return f"op#{op.index} {op.name} {op.outputs[0].name!r}"


def observed_gpu_ops(result, analyses) -> list:
    """(main-subgraph GPU op, the value ranges) for each GPU op in plan order; none without data."""
    if analyses.value_ranges is None:
        return []
    graph = analyses.model.graphs[0]
    return [(graph.ops[index], analyses.value_ranges) for index in sorted(gpu_ops(result))]
