"""A subgraph: tensors, operators in execution order, inputs, outputs, and their invariants."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import TYPE_CHECKING

from gpucompat.errors import GraphError
from gpucompat.ir.nodes import Op, Tensor

if TYPE_CHECKING:
    from gpucompat.ir.model import Model


class Graph:
    """One subgraph of a model. `ops` is the execution plan; `fb` is the SubGraphT record."""

    def __init__(self, fb, model: Model):
        self.fb = fb
        self.model = model
        self.tensors: list[Tensor] = []
        self.ops: list[Op] = []
        self.inputs: list[Tensor] = []
        self.outputs: list[Tensor] = []
        self._tensor_pos: dict[int, int] = {}
        self._op_pos: dict[int, int] = {}

    @property
    def index(self) -> int:
        """Position of this subgraph in the model."""
        return self.model.graphs.index(self)

    @property
    def name(self) -> str:
        """The subgraph's name ("" when unnamed)."""
        n = self.fb.name
        return n.decode("utf-8", "replace") if isinstance(n, bytes) else (n or "")

    def tensor_index(self, tensor: Tensor) -> int:
        """Position of a tensor in `tensors` (cached, rebuilt when the list changed)."""
        return _position(self.tensors, self._tensor_pos, tensor)

    def op_index(self, op: Op) -> int:
        """Position of an op in the execution plan (cached, rebuilt when the plan changed)."""
        return _position(self.ops, self._op_pos, op)

    def has_op(self, op: Op) -> bool:
        """True when `op` is in the execution plan (an op being built is not yet)."""
        try:
            self.op_index(op)
        except GraphError:
            return False
        return True

    def link(self) -> None:
        """Recompute every tensor's producer and consumers from the ops' input/output lists (after
        reading a file; edits keep them current through the methods below)."""
        for t in self.tensors:
            t.producer = None
            t.consumers = []
        for op in self.ops:
            # readers are added in plan order, so an op already recorded (it reads the tensor
            # twice) is the last one: no search of a list that a shared constant makes as long
            # as the graph (what attach() does, quadratic here)
            for t in op.present_inputs:
                readers = t.consumers
                if not readers or readers[-1] is not op:
                    readers.append(op)
            self.attach(op, inputs=False)

    def attach(self, op: Op, inputs: bool = True, outputs: bool = True) -> None:
        """Record `op` as a reader of its inputs and the producer of its outputs."""
        for t in op.present_inputs if inputs else ():
            if op not in t.consumers:
                t.consumers.append(op)
        for t in op.outputs if outputs else ():
            if t.producer is not None and t.producer is not op:
                raise GraphError(
                    f"subgraph {self.index}: tensor#{t.index} {t.name!r} is produced by "
                    f"op#{t.producer.index} and op#{op.index}"
                )
            t.producer = op

    def detach(self, op: Op, inputs: bool = True, outputs: bool = True) -> None:
        """Forget `op` as a reader of its inputs and the producer of its outputs."""
        for t in op.present_inputs if inputs else ():
            t.consumers = [c for c in t.consumers if c is not op]
        for t in op.outputs if outputs else ():
            if t.producer is op:
                t.producer = None

    def stale_links(self) -> str | None:
        """What differs between the links and the ops' lists, or None when they agree (the rewrite
        engine asks after every rewrite: an edit that bypassed the editing methods shows here)."""
        readers = {id(t): [] for t in self.tensors}
        producer = {}
        for op in self.ops:
            for t in op.present_inputs:
                if op not in readers.setdefault(id(t), []):
                    readers[id(t)].append(op)
            for t in op.outputs:
                producer[id(t)] = op
        for t in self.tensors:
            if t.producer is not producer.get(id(t)):
                return f"tensor#{t.index} {t.name!r} names the wrong producer"
            if {id(c) for c in t.consumers} != {id(c) for c in readers[id(t)]}:
                return f"tensor#{t.index} {t.name!r} names the wrong readers"
        return None

    def is_graph_output(self, tensor: Tensor) -> bool:
        """True when the tensor is one of the subgraph's outputs."""
        return any(t is tensor for t in self.outputs)

    def topological_problem(self) -> str | None:
        """Why the execution plan is not a valid topological order, or None when it is.

        Reports the first op that reads a tensor produced later (or by itself) — the runtime
        would read garbage there; a cycle shows up the same way.
        """
        seen: set[int] = set()
        for op in self.ops:
            for t in op.present_inputs:
                if t.producer is not None and id(t.producer) not in seen:
                    where = "itself" if t.producer is op else f"the later op#{t.producer.index}"
                    return (
                        f"op#{op.index} {op.name} reads tensor#{t.index} {t.name!r} "
                        f"produced by {where}"
                    )
            seen.add(id(op))
        return None

    def toposort(self) -> None:
        """Reorder `ops` into a topological order, keeping the current order where it is valid.

        Raises GraphError naming a cycle when there is none: never loops.
        """
        pending = {id(op): sum(1 for t in op.present_inputs if t.producer is not None) for op in self.ops}
        order_key = {id(op): i for i, op in enumerate(self.ops)}
        ready = [(order_key[id(op)], id(op), op) for op in self.ops if pending[id(op)] == 0]
        heapq.heapify(ready)
        result: list[Op] = []
        while ready:
            _, _, op = heapq.heappop(ready)
            result.append(op)
            for t in op.outputs:
                for c in t.consumers:
                    pending[id(c)] -= sum(1 for x in c.present_inputs if x is t)
                    if pending[id(c)] == 0:
                        heapq.heappush(ready, (order_key[id(c)], id(c), c))
        if len(result) != len(self.ops):
            stuck = [op for op in self.ops if pending[id(op)] > 0]
            raise GraphError(f"subgraph {self.index} has a cycle through {describe_cycle(stuck)}")
        self.ops = result

    def cleanup(self) -> None:
        """Remove ops whose outputs nobody reads (and that have no side effects), then tensors
        that no op, graph input or output refers to."""
        keep_ops = live_ops(self)
        for op in self.ops:
            if id(op) not in keep_ops:
                self.detach(op)
        self.ops = [op for op in self.ops if id(op) in keep_ops]
        used = {id(t) for t in self.inputs} | {id(t) for t in self.outputs}
        for op in self.ops:
            used.update(id(t) for t in (*op.present_inputs, *op.outputs, *op.intermediates))
        used.update(id(t) for t in self.model.signature_tensors() if t.graph is self)
        used.update(id(target) for owner, _, _, target in self.model.quantization_links if id(owner) in used)
        self.tensors = [t for t in self.tensors if id(t) in used]

    def check(self) -> None:
        """Raise GraphError when an IR invariant does not hold (after a rewrite, before saving)."""
        self.link()
        members = {id(t) for t in self.tensors}
        for op in self.ops:
            for t in (*op.present_inputs, *op.outputs, *op.intermediates):
                if id(t) not in members:
                    raise GraphError(f"subgraph {self.index}: op {op.name} uses a tensor not in the graph")
        for t in (*self.inputs, *self.outputs):
            if id(t) not in members:
                raise GraphError(f"subgraph {self.index}: graph input/output not in the graph")
        problem = self.topological_problem()
        if problem:
            raise GraphError(f"subgraph {self.index}: {problem}")

    def add_tensor(self, fb) -> Tensor:
        """Append a new tensor built from a TensorT record."""
        t = Tensor(fb, self)
        self.tensors.append(t)
        return t

    def insert_op(self, position: int, op: Op) -> Op:
        """Insert an op into the execution plan at `position`, linking it to its tensors."""
        self.ops.insert(position, op)
        self.attach(op)
        return op

    def remove_op(self, op: Op) -> None:
        """Take `op` out of the execution plan; its outputs are left without a producer."""
        del self.ops[self.op_index(op)]
        self.detach(op)

    def replace_op(self, old: Op, new: list[Op]) -> None:
        """Put the ops `new` (in order) where `old` is in the plan; they may write old's outputs."""
        at = self.op_index(old)
        self.ops[at:at + 1] = new
        self.detach(old)
        for op in new:
            self.attach(op)

    def replace_uses(self, old: Tensor, new: Tensor) -> None:
        """Make every reader of `old` (ops and graph outputs) read `new` instead."""
        for op in list(old.consumers):
            op.set_inputs([new if t is old else t for t in op.inputs])
        self.outputs = [new if t is old else t for t in self.outputs]

    def __repr__(self) -> str:
        return f"Graph#{self.index}({self.name!r}, {len(self.ops)} ops, {len(self.tensors)} tensors)"


def _position(items: list, cache: dict[int, int], item) -> int:
    pos = cache.get(id(item))
    if pos is None or pos >= len(items) or items[pos] is not item:
        cache.clear()
        cache.update((id(x), i) for i, x in enumerate(items))
        pos = cache.get(id(item))
        if pos is None:
            raise GraphError(f"{item!r} is not part of this graph")
    return pos


def live_ops(graph: Graph) -> set[int]:
    """Ids of ops that contribute to a graph output or may have side effects."""
    from gpucompat.ir.effects import has_side_effect

    effects = [op for op in graph.ops if has_side_effect(op)]
    live = {id(op) for op in effects}
    stack = [*graph.outputs, *(t for op in effects for t in op.inputs if t is not None)]
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        if t is None or id(t) in seen:  # None: an absent optional input
            continue
        seen.add(id(t))
        p = t.producer
        if p is not None and id(p) not in live:  # a live op's inputs are on the stack already
            live.add(id(p))
            stack += p.inputs
    return live


def describe_cycle(ops: Iterable[Op]) -> str:
    """Short text naming the ops of a cycle ("op#3 ADD -> op#4 MUL -> op#3 ADD")."""
    ops = list(ops)
    if not ops:
        return "no ops"
    import networkx as nx

    from gpucompat.ir.networkx_view import to_networkx

    graph = ops[0].graph
    stuck = {graph.op_index(op) for op in ops}
    view = to_networkx(graph).subgraph(stuck)
    try:
        cycle = [graph.ops[u] for u, _ in nx.find_cycle(view)]
    except nx.NetworkXNoCycle:
        cycle = ops[:3]
    names = [f"op#{op.index} {op.name}" for op in cycle] + [f"op#{cycle[0].index} {cycle[0].name}"]
    return " -> ".join(names)
