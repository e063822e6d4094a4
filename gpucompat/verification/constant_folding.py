"""Load-time constant folding for hybrid execution: ops whose inputs are all constant (DENSIFY,
fp16 DEQUANTIZE, ...) run once on the reference interpreter and their outputs become constants, as
the delegate folds them (model_transformations.cc merge_densify, model_builder.cc
DequantizeOperationParser)."""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.ir.submodel import cut
from gpucompat.verification.control_flow import CONTROL_FLOW
from gpucompat.verification.interpreter import reference_interpreter, run_reference


def fold_constants(graph: ir.Graph) -> dict[int, np.ndarray]:
    """Values (by tensor id) of every tensor computable from constants alone, by running those ops
    (control flow excepted) once, all in one cut-out model: an interpreter per op cost a cold
    verify of a model with a hundred fp16 weights a fifth of a second."""
    ops: list[ir.Op] = []
    known: set[int] = set()
    for op in graph.ops:
        inputs = op.present_inputs
        if op.name not in CONTROL_FLOW and inputs and all(t.is_constant or id(t) in known for t in inputs):
            ops.append(op)
            known.update(id(t) for t in op.outputs)
    if not ops:
        return {}
    outputs = [t for op in ops for t in op.outputs]
    names = ", ".join(dict.fromkeys(op.name for op in ops))
    it = reference_interpreter(cut(ops, [], outputs), f"the {len(ops)} ops computed from constants ({names})",
                               xnnpack=False)
    return {id(t): v for t, v in zip(outputs, run_reference(it, []))}
