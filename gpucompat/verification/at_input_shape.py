"""verify on inputs of another shape than the stored one: the model frozen at the inputs' shape.

A model whose stored input shape is a placeholder ([1, 1] where the signature says [-1, -1])
runs at whatever shape the signature allows; an app resizes the input before it allocates. The
executor builds its kernels for the declared shapes, and LiteRT's accelerator compiles the model
as stored, so the side under test runs the model frozen at the inputs' shape (freeze-shapes:
every tensor gets the shape the reference interpreter gives it there). The reference runs the
stored model, resized to that shape before it is allocated (interpreter.py).
"""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError


def differs(graph: ir.Graph, feeds: list[np.ndarray]) -> bool:
    """True when some input is fed at another shape than the one stored for it."""
    return any(tuple(np.shape(v)) != tuple(t.shape) for t, v in zip(graph.inputs, feeds))


def frozen_at_feeds(model: ir.Model, feeds: list[np.ndarray], profile: str) -> ir.Model:
    """A copy of `model` frozen at the shapes of `feeds` (one value per input); a one-line error
    saying why when freeze-shapes refuses (an output shape that depends on the data)."""
    from gpucompat.rewrites.engine import RewriteContext, apply
    from gpucompat.rewrites.freeze_shapes import FreezeShapes
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    copy = ir.from_bytes(ir.to_bytes(model), model.path)
    graph = copy.graphs[0]
    shapes = {t.name: tuple(int(n) for n in np.shape(v)) for t, v in zip(graph.inputs, feeds)}
    freeze = FreezeShapes(shapes)
    trace = apply(copy, [freeze], RewriteContext(registry.get(profile), Options()))
    if not trace.applied:
        why = next((e.reason for e in trace.not_applied), "nothing to freeze")
        stored = ", ".join(f"{list(t.shape)}" for t in graph.inputs)
        raise GpucompatError(f"{model.path}: the inputs are fed at {', '.join(map(str, shapes.values()))}, the "
                             f"model is stored at {stored}, and it cannot be frozen at the inputs' shape ({why})")
    return copy
