"""Sub-model cutting: a run of ops taken out of a model into a standalone model for the reference
interpreter (the CPU side of hybrid execution, and load-time constant folding).

The new model holds only those ops, the tensors they touch and the constants they read; tensors
arriving from elsewhere become its inputs.
"""

from __future__ import annotations

import copy

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir.signatures import subgraph_calls


def cut(ops: list[ir.Op], inputs: list[ir.Tensor], outputs: list[ir.Tensor]) -> bytes:
    """A model running `ops` (in order) from `inputs` to `outputs`."""
    from gpucompat.ir.build import empty_model

    for op in ops:
        if subgraph_calls(op):
            raise GpucompatError(f"op#{op.index} {op.name} calls another subgraph; control flow cannot be cut out")
    model, graph = empty_model()
    fresh: dict[int, ir.Tensor] = {}

    def own(t: ir.Tensor | None) -> ir.Tensor | None:
        if t is None:
            return None
        if id(t) not in fresh:
            tfb = copy.copy(t.fb)
            tfb.buffer = model.add_buffer(np.asarray(t.buffer.data, np.uint8).tobytes()) if t.is_constant else 0
            fresh[id(t)] = graph.add_tensor(tfb)
        return fresh[id(t)]

    graph.inputs = [own(t) for t in inputs]
    for op in ops:
        graph.ops.append(ir.Op(copy.copy(op.fb), graph, op.code, [own(t) for t in op.inputs],
                               [own(t) for t in op.outputs], [own(t) for t in op.intermediates]))
    graph.outputs = [own(t) for t in outputs]
    graph.link()
    return ir.to_bytes(model)
