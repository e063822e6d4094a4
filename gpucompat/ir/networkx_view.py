"""A networkx view of a subgraph for analyses (reachability, cycles, condensation).

The IR stays the source of truth: the view is rebuilt whenever it is needed and never edited.
Nodes are op indices (attributes: `op`, the Op); an edge u -> v carries `tensors`, the Tensor
objects op u produces and op v reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

    from gpucompat.ir.graph import Graph


def to_networkx(graph: Graph) -> nx.DiGraph:
    """The data-flow graph of `graph`'s ops (links must be current: see Graph.link)."""
    import networkx as nx

    g = nx.DiGraph()
    for i, op in enumerate(graph.ops):
        g.add_node(i, op=op)
    for i, op in enumerate(graph.ops):
        for t in op.outputs:
            for consumer in t.consumers:
                j = graph.op_index(consumer)
                if g.has_edge(i, j):
                    g.edges[i, j]["tensors"].append(t)
                else:
                    g.add_edge(i, j, tensors=[t])
    return g
