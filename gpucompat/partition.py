"""The delegate's partitioning, step for step.

Mirrors tflite/graph_info.cc `PartitionGraphIntoIndependentNodeSubsets` (greedy mode, control
edges chaining side-effecting ops) and tflite/delegates/utils.cc `GetFirstNLargestPartitions` /
`FP16GraphPartitionHelper::GetNodesOfFirstNLargestPartitionsImpl`. It takes only a support
predicate's answer (the set of supported node indices), like torch.fx's capability partitioner,
so every profile shares it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpucompat.ir import Graph
from gpucompat.ir.effects import has_side_effect

_NOT_READY = -1
_ALWAYS_READY = -2


@dataclass
class NodeSubset:
    """A run of nodes of one type, as the runtime forms them. `nodes` are op indices in the
    order the runtime adds them; inputs/outputs are tensor indices crossing the subset."""

    delegated_type: bool
    nodes: list[int] = field(default_factory=list)
    input_tensors: list[int] = field(default_factory=list)
    output_tensors: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Node count: what the runtime ranks partitions by."""
        return len(self.nodes)


def node_subsets(graph: Graph, supported: set[int], remap: dict[int, int] | None = None) -> list[NodeSubset]:
    """All node subsets, alternating between supported and unsupported runs, in creation order.
    `remap` (tensor index -> tensor index) re-points the inputs of supported nodes, as the FP16
    helper re-points delegated nodes from a DEQUANTIZE's output to its fp16 constant.

    Nodes that can never become ready (a cycle, a tensor produced after it is read in a way no
    order fixes) are left out, as the runtime would fail; callers check topology first.
    """
    ops = graph.ops
    n = len(ops)
    tensor_index = {id(t): i for i, t in enumerate(graph.tensors)}
    inputs = [[tensor_index[id(t)] for t in op.present_inputs] for op in ops]
    for i in supported if remap else ():
        inputs[i] = [remap.get(t, t) for t in inputs[i]]
    outputs = [[tensor_index[id(t)] for t in op.outputs] for op in ops]
    epoch = [_ALWAYS_READY] * len(graph.tensors)
    for outs in outputs:
        for t in outs:
            epoch[t] = _NOT_READY
    control_succ: dict[int, list[int]] = {}
    incoming = [0] * n
    last = -1
    for i, op in enumerate(ops):
        if has_side_effect(op):
            if last != -1:
                control_succ.setdefault(last, []).append(i)
                incoming[i] += 1
            last = i
    node_epoch = [_NOT_READY] * n
    subsets: list[NodeSubset] = []

    def update(i: int, current: NodeSubset, current_epoch: int) -> bool:
        if node_epoch[i] != _NOT_READY or incoming[i]:
            return False
        for t in inputs[i]:  # a loop, not any(): a generator per node and pass costs more
            if epoch[t] == _NOT_READY:
                return False
        kind = i in supported
        if current.delegated_type is None:
            current.delegated_type = kind
        if current.delegated_type != kind:
            return False
        node_epoch[i] = current_epoch
        current.nodes.append(i)
        for t in outputs[i]:
            epoch[t] = current_epoch
        for t in inputs[i]:
            if epoch[t] != current_epoch:
                current.input_tensors.append(t)
                if epoch[t] >= 0:
                    subsets[epoch[t]].output_tensors.append(t)
        for j in control_succ.get(i, ()):
            incoming[j] -= 1
        return True

    # the runtime sweeps every node on each pass; a placed node never takes part again, so
    # sweeping only the unplaced ones, in the same order, places the same nodes at the same time
    unplaced = list(range(n))
    while True:
        current = NodeSubset(delegated_type=None)  # type: ignore[arg-type]
        subsets.append(current)
        current_epoch = len(subsets) - 1
        while True:
            left = [i for i in unplaced if not update(i, current, current_epoch)]
            did_something = len(left) != len(unplaced)
            unplaced = left
            if not did_something:
                break
        if not current.nodes:
            subsets.pop()
            break
    for t in graph.outputs:
        e = epoch[tensor_index[id(t)]]
        if e >= 0:
            subsets[e].output_tensors.append(tensor_index[id(t)])
    for s in subsets:
        s.input_tensors = sorted(set(s.input_tensors))
        s.output_tensors = sorted(set(s.output_tensors))
    return subsets


def largest(partitions: list[NodeSubset], n: int, min_nodes: int = 0) -> list[NodeSubset]:
    """GetFirstNLargestPartitions: the `n` partitions with the most nodes (n <= 0 means 1, as the
    GPU delegate coerces it). The runtime's std::sort is unstable; with the few partitions real
    models have its insertion sort keeps the earliest partition first among equals, as we do."""
    n = n if n > 0 else 1
    ranked = sorted(partitions, key=lambda p: -p.size)
    chosen = []
    for p in ranked[:n]:
        if p.size < min_nodes:
            break
        chosen.append(p)
    return chosen


def supported_prefix(graph: Graph, supported: set[int]) -> set[int]:
    """2019 delegation: ops of the execution plan up to the first unsupported one."""
    chosen = set()
    for i in range(len(graph.ops)):
        if i not in supported:
            break
        chosen.add(i)
    return chosen
