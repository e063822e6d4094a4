"""Counterfactuals grouped by what a user can do: run a `gpucompat fix` rewrite that applies to
the model, or have an op type accepted (every rejected node of the type); single nodes only
where accepting one gains something else than accepting another of its type. Each is found by
re-running the partition simulation of gpucompat.placement with those nodes taken by the GPU (a
folded or substituted op no longer stands on the CPU); sorted by gain, this is the "what do I
change first" list."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gpucompat.partition import node_subsets
from gpucompat.placement import SubgraphResult, after_replace, choose_nodes
from gpucompat.rules.support.judging import partition_supported

DELEGATION_BREAKING = ("parse", "backend")
MAX_SINGLE_NODES = 40  # single-node counterfactuals beyond this many add time, not insight


@dataclass
class WhatIf:
    """The outcome of one action on `nodes` ((subgraph, op index) pairs): `op` is the op type
    accepted, or the rewrite's name for kind "rewrite"."""

    kind: str  # "rewrite" (a gpucompat fix rewrite), "op_type" (every rejected node of the type) or "node"
    op: str
    nodes: list[tuple[int, int]]
    ops_gpu: int
    ops_total: int
    partitions_delegated: int
    partitions_total: int
    delegation_fails: bool
    gain: int  # ops moved off the CPU compared with today

    @property
    def share(self) -> float:
        return self.ops_gpu / self.ops_total if self.ops_total else 0.0

    def describe(self) -> str:
        """One line: "accepting the 2 GATHER_ND nodes: 1 partition, 100% on GPU"."""
        if self.kind == "rewrite":
            what = f"gpucompat fix ({self.op}) on {len(self.nodes)} rejected node{'s' if len(self.nodes) > 1 else ''}"
        elif self.kind == "op_type":
            what = f"accepting the {len(self.nodes)} {self.op} node{'s' if len(self.nodes) > 1 else ''}"
        else:
            what = f"accepting {self.op} node {self.nodes[0][0]}:{self.nodes[0][1]}"
        if self.delegation_fails:
            return f"{what}: the delegation still fails, 0% on GPU"
        plural = "s" if self.partitions_delegated != 1 else ""
        return (f"{what}: {self.partitions_delegated} delegated partition{plural}, "
                f"{100 * self.share:.0f}% on GPU ({self.gain:+d} op{'' if abs(self.gain) == 1 else 's'})")


def what_if(model, result) -> list[WhatIf]:
    """Every action with a gain, best first; none for a model the interpreter cannot prepare
    (no op runs anywhere until its input shape changes) or the runtime cannot load (no op the
    delegate accepts changes that)."""
    if result.prepare_failure is not None or result.cannot_load:
        return []
    rejected: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for o in result.ops:
        if not o.verdict.ok and o.verdict.layer != "gate":
            rejected[o.op].append((o.subgraph, o.index))
    reach = rewrite_reach(model, result)
    candidates = [("rewrite", name, nodes) for name, nodes in reach.items()]
    # an op type a rewrite already replaces everywhere is that rewrite's line, not a line of its own
    candidates += [("op_type", op, nodes) for op, nodes in rejected.items()
                   if not any(set(nodes) <= set(done) for done in reach.values())]
    outcomes = [simulate(model, result, kind, op, nodes) for kind, op, nodes in candidates]
    singles = [("node", op, [n]) for op, nodes in rejected.items() if len(nodes) > 1 for n in nodes]
    outcomes += _differing([simulate(model, result, kind, op, nodes) for kind, op, nodes in singles[:MAX_SINGLE_NODES]])
    outcomes = [w for w in outcomes if w.gain > 0 or (result.delegation_fails and not w.delegation_fails)]
    order = {"rewrite": 0, "op_type": 1, "node": 2}
    outcomes.sort(key=lambda w: (-w.gain, w.partitions_delegated, order[w.kind], len(w.nodes), w.op, w.nodes))
    return outcomes


def _differing(singles: list[WhatIf]) -> list[WhatIf]:
    """The single-node outcomes of the op types whose nodes do not all gain the same."""
    by_type: dict[str, list[WhatIf]] = defaultdict(list)
    for w in singles:
        by_type[w.op].append(w)
    return [w for ws in by_type.values() if len({(w.gain, w.partitions_delegated) for w in ws}) > 1 for w in ws]


def rewrite_reach(model, result) -> dict[str, list[tuple[int, int]]]:
    """Rewrite name -> the rejected nodes that `gpucompat fix` (its default, signature-keeping
    rewrites) replaces: the ops of each match, and the candidates a match makes matchable (a
    DEQUANTIZE reading a DENSIFY that is folded first reads a constant then)."""
    from gpucompat.rewrites import select
    from gpucompat.rewrites.engine import Match, RewriteContext

    ctx = RewriteContext(result.profile, result.options)
    rejected = {(o.subgraph, o.index) for o in result.ops if not o.verdict.ok}
    reach: dict[str, list[tuple[int, int]]] = {}
    if not rejected:  # nothing for a rewrite to win back: no need to look for matches
        return reach
    for rw in select():
        covered: set[int] = set()  # id() of the ops the rewrite replaces
        for g in model.graphs:
            pending = list(rw.candidates(g, ctx))
            for op in pending:
                m = rw.check(op, ctx)
                if isinstance(m, Match):
                    covered.update(id(x) for x in m.ops or [m.anchor])
                elif covered and _fed_by(op, covered) and not ctx.verdict(op).ok:
                    covered.add(id(op))
        nodes = sorted((g.index, i) for g in model.graphs for i, op in enumerate(g.ops)
                       if id(op) in covered and (g.index, i) in rejected) if covered else []
        if nodes:
            reach[rw.name] = nodes
    return reach


def _fed_by(op, covered: set[int]) -> bool:
    """True when every non-constant input of `op` comes from an op in `covered` (and one does)."""
    producers = [t.producer for t in op.present_inputs if not t.is_constant]
    return bool(producers) and all(p is not None and id(p) in covered for p in producers)


def simulate(model, result, kind: str, op: str, nodes: list[tuple[int, int]]) -> WhatIf:
    """Partition every subgraph again with `nodes` taken by the GPU."""
    accepted = set(nodes)
    verdicts = defaultdict(dict)
    for o in result.ops:
        verdicts[o.subgraph][o.index] = o.verdict
    gpu = kernels = total = 0
    fails = False
    for g, base in zip(model.graphs, result.subgraphs):
        if base.gate or base.topology_problem or not g.ops:
            continue
        fp16 = set(base.fp16_dequantize)
        gi = g.index  # a search of the model's graphs: asked once, not per op
        judged = verdicts[gi]
        ok = partition_supported([judged[i] for i in range(len(g.ops))], fp16)
        ok |= {i for i in range(len(g.ops)) if (gi, i) in accepted}
        sr = SubgraphResult(gi, g.name, len(g.ops))
        sr.subsets = node_subsets(g, ok)
        chosen = choose_nodes(g, sr, ok, fp16, result.profile, result.options)
        fails |= any((gi, i) not in accepted and not judged[i].ok
                     and judged[i].layer in DELEGATION_BREAKING for i in chosen)
        gpu += len(chosen)
        kernels += len(sr.delegated)
        total += len(after_replace(g, sr, ok, chosen, fp16))
    if fails:
        gpu = kernels = total = 0
    return WhatIf(kind, op, nodes, gpu, result.ops_total, kernels, total, fails, gpu - result.ops_gpu)
