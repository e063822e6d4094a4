"""Load-time constant folding for hybrid execution: ops whose inputs are all constant (DENSIFY,
fp16 DEQUANTIZE, ...) run once on the reference interpreter and their outputs become constants, as
the delegate folds them (model_transformations.cc merge_densify, model_builder.cc
DequantizeOperationParser)."""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.verification.control_flow import CONTROL_FLOW
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.submodel import cut


def fold_constants(graph: ir.Graph) -> dict[int, np.ndarray]:
    """Values (by tensor id) of every tensor computable from constants alone, by running those ops
    once (control flow excepted)."""
    folded: dict[int, np.ndarray] = {}
    for op in graph.ops:
        inputs = op.present_inputs
        if op.name not in CONTROL_FLOW and inputs and all(t.is_constant or id(t) in folded for t in inputs):
            ins = [t for t in op.present_inputs if id(t) in folded]
            it = reference_interpreter(cut([op], ins, op.outputs), f"the constant op#{op.index} {op.name}",
                                       xnnpack=False)
            for t, v in zip(op.outputs, run_reference(it, [folded[id(t)] for t in ins])):
                folded[id(t)] = v
    return folded
