"""Counterfactuals: for each rejected op type, and each single rejected node, what the delegated
share and the partition count would become if the delegate accepted it (or a rewrite replaced it
with supported ops). Found by re-running the partition simulation of gpucompat.placement with those
nodes accepted; sorted by gain, this is the "what do I change first" list."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gpucompat.partition import node_subsets
from gpucompat.placement import SubgraphResult, choose_nodes
from gpucompat.rules.judging import is_fp16_constant_dequantize

DELEGATION_BREAKING = ("parse", "backend")
MAX_SINGLE_NODES = 40  # single-node counterfactuals beyond this many add time, not insight


@dataclass
class WhatIf:
    """The outcome of accepting `nodes` ((subgraph, op index) pairs), all of op type `op`."""

    kind: str  # "op_type" (every rejected node of the type) or "node" (one of them)
    op: str
    nodes: list[tuple[int, int]]
    ops_gpu: int
    ops_total: int
    partitions_delegated: int
    partitions_total: int
    delegation_fails: bool
    gain: int  # ops moved to the GPU compared with today

    @property
    def share(self) -> float:
        return self.ops_gpu / self.ops_total if self.ops_total else 0.0

    def describe(self) -> str:
        """One line: "accepting the 2 GATHER_ND nodes: 1 partition, 100% on GPU"."""
        if self.kind == "op_type":
            what = f"accepting the {len(self.nodes)} {self.op} node{'s' if len(self.nodes) > 1 else ''}"
        else:
            what = f"accepting {self.op} node {self.nodes[0][0]}:{self.nodes[0][1]}"
        if self.delegation_fails:
            return f"{what}: the delegation still fails, 0% on GPU"
        plural = "s" if self.partitions_delegated != 1 else ""
        return (f"{what}: {self.partitions_delegated} delegated partition{plural}, "
                f"{100 * self.share:.0f}% on GPU ({self.gain:+d} ops)")


def what_if(model, result) -> list[WhatIf]:
    """Every counterfactual with a gain, best first."""
    rejected: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for o in result.ops:
        if not o.verdict.ok and o.verdict.layer != "gate" and not _helper_node(model, result, o):
            rejected[o.op].append((o.subgraph, o.index))
    candidates = [("op_type", op, nodes) for op, nodes in rejected.items()]
    singles = [("node", op, [n]) for op, nodes in rejected.items() if len(nodes) > 1 for n in nodes]
    candidates += singles[:MAX_SINGLE_NODES]
    outcomes = [simulate(model, result, kind, op, nodes) for kind, op, nodes in candidates]
    outcomes = [w for w in outcomes if w.gain > 0 or (result.delegation_fails and not w.delegation_fails)]
    outcomes.sort(key=lambda w: (-w.gain, w.partitions_delegated, len(w.nodes), w.op, w.nodes))
    return outcomes


def simulate(model, result, kind: str, op: str, nodes: list[tuple[int, int]]) -> WhatIf:
    """Partition every subgraph again with `nodes` accepted."""
    accepted = set(nodes)
    verdicts = defaultdict(dict)
    for o in result.ops:
        verdicts[o.subgraph][o.index] = o.verdict
    gpu = kernels = total = 0
    fails = False
    for g, base in zip(model.graphs, result.subgraphs):
        if base.gate or base.topology_problem or not g.ops:
            continue
        ok = {i for i, v in verdicts[g.index].items()
              if (g.index, i) in accepted or v.ok or v.layer in DELEGATION_BREAKING}
        fp16 = {i for i, o in enumerate(g.ops)
                if result.profile.fp16_dequantize_helper and is_fp16_constant_dequantize(o)}
        sr = SubgraphResult(g.index, g.name, len(g.ops))
        sr.subsets = node_subsets(g, ok)
        chosen = choose_nodes(g, sr, ok, fp16, result.profile, result.options)
        fails |= any((g.index, i) not in accepted and not verdicts[g.index][i].ok
                     and verdicts[g.index][i].layer in DELEGATION_BREAKING for i in chosen)
        gpu += len(chosen)
        kernels += len(sr.delegated)
        total += len(node_subsets(g, chosen)) if chosen else 0
    if fails:
        gpu = kernels = total = 0
    return WhatIf(kind, op, nodes, gpu, result.ops_total, kernels, total, fails, gpu - result.ops_gpu)


def _helper_node(model, result, o) -> bool:
    """A constant-FP16 DEQUANTIZE: "rejected" only as the FP16 partition helper's bookkeeping."""
    return result.profile.fp16_dequantize_helper and is_fp16_constant_dequantize(model.graphs[o.subgraph].ops[o.index])
