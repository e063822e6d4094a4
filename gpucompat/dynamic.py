"""The dynamic-tensor gate: which tensor, if any, becomes dynamic when the interpreter prepares a
subgraph. The GPU delegate does not accept dynamic tensors, so one such tensor means nothing in
that subgraph is delegated (tflite/core/subgraph.cc ModifyGraphWithDelegateImpl: "Attempting to
use a delegate that only supports static-sized tensors with a graph that has dynamic-sized
tensors").

A tensor is dynamic when its producer computes its shape from a value not known at prepare time.
Values known at prepare time are constants and SHAPE outputs (persistent read-only tensors), and
what ops that fold at prepare compute from them. Preparation stops at the first dynamic output, so
the first one found in plan order is the one the runtime names.
"""

from __future__ import annotations

from gpucompat.ir import Graph, Op, Tensor, opcodes

# op -> inputs whose *values* decide the output shape
_SHAPE_INPUTS: dict[str, tuple[int, ...]] = {
    "RESHAPE": (1,), "BROADCAST_TO": (1,), "TILE": (1,), "PAD": (1,), "PADV2": (1,),
    "MIRROR_PAD": (1,), "SLICE": (1, 2), "STRIDED_SLICE": (1, 2, 3), "FILL": (0,),
    "RANGE": (0, 1, 2), "RESIZE_BILINEAR": (1,), "RESIZE_NEAREST_NEIGHBOR": (1,),
    "SPLIT": (0,), "SPLIT_V": (1, 2), "TRANSPOSE": (1,), "MEAN": (1,), "SUM": (1,),
    "REDUCE_MAX": (1,), "REDUCE_MIN": (1,), "REDUCE_PROD": (1,), "REDUCE_ANY": (1,),
    "REDUCE_ALL": (1,), "EXPAND_DIMS": (1,), "TOPK_V2": (1,), "ONE_HOT": (1,),
    "TRANSPOSE_CONV": (0,), "ARG_MAX": (1,), "ARG_MIN": (1,), "GATHER": (),
    "ZEROS_LIKE": (), "CUMSUM": (), "BATCH_TO_SPACE_ND": (1, 2), "SPACE_TO_BATCH_ND": (1, 2),
    "NON_MAX_SUPPRESSION_V4": (2,), "NON_MAX_SUPPRESSION_V5": (2,), "RANDOM_UNIFORM": (0,),
    "RANDOM_STANDARD_NORMAL": (0,), "MULTINOMIAL": (1,),
}
_ALWAYS_DYNAMIC = {"WHERE", "UNIQUE"}

SHAPE_INPUTS = {opcodes.BUILTIN[k]: v for k, v in _SHAPE_INPUTS.items() if k in opcodes.BUILTIN}
ALWAYS_DYNAMIC = {opcodes.BUILTIN[k] for k in _ALWAYS_DYNAMIC if k in opcodes.BUILTIN}


def first_dynamic_tensor(graph: Graph) -> tuple[Op, Tensor] | None:
    """The first (op, output) in plan order whose shape is not known when the subgraph is
    prepared, or None when every tensor is static."""
    known: set[int] = set()

    def value_known(t: Tensor | None) -> bool:
        return t is None or t.is_constant or id(t) in known

    for op in graph.ops:
        if not op.outputs:
            continue
        if op.builtin in ALWAYS_DYNAMIC:
            return op, op.outputs[0]
        if op.builtin == opcodes.BUILTIN["SHAPE"]:
            known.add(id(op.outputs[0]))
            continue
        for i in SHAPE_INPUTS.get(op.builtin, ()):
            if not value_known(op.input(i)):
                return op, op.outputs[0]
    return None
