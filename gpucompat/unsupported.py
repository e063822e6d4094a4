"""The ops the runtime lists as unsupported when it delegates a model: the rejected ops, grouped
as its log groups them, and the constant FP16 DEQUANTIZE nodes it lists (check's JSON record and
`confirm`'s comparison with the real accelerator read the same list)."""

from __future__ import annotations

from collections import defaultdict

from gpucompat.placement import ModelResult

# Why a constant FP16 DEQUANTIZE is listed among the rejected ops (the runtime gives no reason).
FP16_LISTED = ("constant fp16 weights the delegate reads directly; listed when the subgraph is not "
               "taken whole (runs once on the CPU, holds no op back)")


def listed_fp16_nodes(result: ModelResult) -> set[tuple[int, int]]:
    """(subgraph, node) of the constant FP16 DEQUANTIZE nodes the runtime lists as unsupported."""
    return {(s.index, i) for s in result.subgraphs for i in s.fp16_dequantize_listed}


def unsupported_groups(result: ModelResult) -> list[dict]:
    """The ops the runtime lists as unsupported, grouped by op type, reason and layer, with their
    node indices: the rejected ops, and the constant FP16 DEQUANTIZE nodes of a subgraph the FP16
    helper does not take whole (runtime_message "", as the runtime prints them)."""
    groups: dict[tuple, list] = defaultdict(list)
    listed = listed_fp16_nodes(result)
    for o in result.ops:
        if not o.verdict.ok:
            key = (o.op, o.opcode, o.custom_code, o.verdict.reason, o.verdict.layer, o.verdict.runtime_message)
        elif (o.subgraph, o.index) in listed:
            key = (o.op, o.opcode, o.custom_code, FP16_LISTED, "partition", "")
        else:
            continue
        groups[key].append([o.subgraph, o.index])
    return [{"op": op, "opcode": code, "custom_code": custom, "count": len(nodes), "nodes": nodes,
             "reason": reason, "layer": layer, "runtime_message": message}
            for (op, code, custom, reason, layer, message), nodes in groups.items()]
