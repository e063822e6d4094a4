"""What the reference interpreter computes for a model's tensors: values that rewrites fold into
constants and the shapes freeze-shapes writes into the file, taken from the runtime's own
kernels rather than re-implemented here.

The model runs once on zero inputs (at the shapes asked for, else as declared), without the
default delegates (XNNPACK would take ops and leave their intermediate tensors unwritten) and
with every tensor kept, so any tensor of the main subgraph can be read after the invoke.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from gpucompat.ir import Model, Tensor


class ReferenceRun:
    """One invoke of the reference interpreter over `model` as it stands now."""

    def __init__(self, model: Model, input_shapes: Sequence[Sequence[int]] | None = None):
        from ai_edge_litert.interpreter import Interpreter, OpResolverType

        from gpucompat.ir.writer import to_bytes

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "preserve_all_tensors is for debugging"
            it = Interpreter(model_content=to_bytes(model), experimental_preserve_all_tensors=True,
                             experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        details = it.get_input_details()
        if input_shapes is not None:
            for d, shape in zip(details, input_shapes):
                it.resize_tensor_input(d["index"], list(shape), strict=False)
        it.allocate_tensors()
        for d in it.get_input_details():
            it.set_tensor(d["index"], np.zeros(d["shape"], dtype=d["dtype"]))
        it.invoke()
        self.interpreter = it

    def value(self, t: Tensor) -> np.ndarray:
        """The tensor's value after the invoke (its shape is the shape it had at run time)."""
        return self.interpreter.get_tensor(t.index, t.graph.index).copy()

    def shape(self, t: Tensor) -> tuple[int, ...] | None:
        """The tensor's run-time shape, None when the interpreter cannot give it (a resource or
        variant tensor, a tensor no kernel allocated)."""
        try:
            return tuple(int(d) for d in self.interpreter.get_tensor(t.index, t.graph.index).shape)
        except ValueError:
            return None
