"""Tensor shapes as the runtime resolves them before the delegate sees the graph.

A converted model can declare a shape that the runtime changes when it prepares the ops: with a
dynamic batch, SPACE_TO_BATCH_ND declares batch 1 for its output and prepares it as batch x
prod(block). The delegate is handed the prepared graph: ModifyGraphWithDelegate prepares every op
before it partitions (subgraph.cc, the dynamic-tensor check), so the GPU kernels are built for the
resolved shapes. Hybrid execution must use them too, or a CPU partition downstream receives a
tensor of the declared size and fails.
"""

from __future__ import annotations

from gpucompat import ir
from gpucompat.errors import GpucompatError


def prepared_shapes(model: ir.Model, data: bytes | None = None) -> dict[int, tuple[int, ...]]:
    """Tensor index -> shape after the reference interpreter prepared the main subgraph, for each
    tensor whose prepared shape differs from its declared one (same rank, every dimension known).
    Empty when the interpreter cannot prepare the model (a custom op without a CPU kernel, say):
    the declared shapes are then all there is. `data`: the bytes `model` was read from, unchanged
    since (writing a 200-op model again takes 0.1-0.15 s of a cold verify)."""
    from gpucompat.verification.interpreter import reference_interpreter

    try:
        it = reference_interpreter(ir.to_bytes(model) if data is None else data, "the model", xnnpack=False)
        details = it.get_tensor_details()
    except (GpucompatError, ValueError):
        return {}
    changed: dict[int, tuple[int, ...]] = {}
    tensors = model.graphs[0].tensors
    for d in details:
        i, shape = d["index"], tuple(int(n) for n in d["shape"])
        if i < len(tensors) and len(shape) == len(tensors[i].shape) and shape != tuple(tensors[i].shape) \
                and all(n > 0 for n in shape):
            changed[i] = shape
    return changed


def with_prepared_shapes(model: ir.Model, data: bytes | None = None) -> ir.Model:
    """`model` itself when the runtime keeps every declared shape, else a copy whose main subgraph
    carries the prepared shapes (the caller's model, which `fix` may write, is never changed);
    `data` as for `prepared_shapes` (written here when not given: once, for both)."""
    data = ir.to_bytes(model) if data is None else data
    changed = prepared_shapes(model, data)
    if not changed:
        return model
    copy = ir.from_bytes(data)
    copy.path = model.path
    for i, shape in changed.items():
        copy.graphs[0].tensors[i].fb.shape = list(shape)
    return copy
