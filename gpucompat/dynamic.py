"""The dynamic-tensor gate: which tensor, if any, becomes dynamic when the interpreter prepares a
subgraph. The GPU delegate does not accept dynamic tensors (tflite/core/subgraph.cc
ModifyGraphWithDelegate: "Attempting to use a delegate that only supports static-sized tensors
with a graph that has dynamic-sized tensors"), so one such tensor stops delegation.

The runtime prepares ops in plan order with the static shapes of the file (a dynamic batch
dimension, -1 in the shape signature, is prepared as stored: observed with ai-edge-litert 2.3.0,
a [None, 8, 8, 4] model is fully delegated). An op's output becomes dynamic when a value that
decides its shape is not known at prepare time. Known values are constants, SHAPE outputs
(persistent read-only tensors), and what the ops that fold at prepare compute from known values.
Preparation stops at the first dynamic output, so the first one in plan order is the one named.
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
    "TRANSPOSE_CONV": (0,), "ARG_MAX": (1,), "ARG_MIN": (1,),
    "BATCH_TO_SPACE_ND": (1, 2), "SPACE_TO_BATCH_ND": (1, 2),
    "NON_MAX_SUPPRESSION_V4": (2,), "NON_MAX_SUPPRESSION_V5": (2,), "RANDOM_UNIFORM": (0,),
    "RANDOM_STANDARD_NORMAL": (0,), "MULTINOMIAL": (1,),
}
# output shape depends on the data itself
_ALWAYS_DYNAMIC = {"WHERE", "UNIQUE"}
# ops whose kernels postpone the output's allocation when their data input has a dynamic (-1)
# dimension in its shape signature, whatever its stored shape (slice.cc, topk_v2.cc Prepare:
# HasUnspecifiedDimension(input)); observed with ai-edge-litert 2.3.0: a SLICE of a [-1, 8]
# tensor gates the model, a STRIDED_SLICE of it does not.
_DYNAMIC_WITH_DYNAMIC_INPUT = {"SLICE", "TOPK_V2"}
# ops that compute their output at prepare when every input is known (kernels that mark the output
# kTfLitePersistentRo). Observed with ai-edge-litert 2.3.0 on SHAPE -> op -> RESHAPE chains:
# STRIDED_SLICE, CONCATENATION, GATHER and MUL fold; PACK, CAST, ADD, SUB and SLICE do not (the
# RESHAPE output then becomes dynamic and the model is gated).
_FOLDS_AT_PREPARE = {"STRIDED_SLICE", "CONCATENATION", "GATHER", "MUL"}

SHAPE_INPUTS = {opcodes.BUILTIN[k]: v for k, v in _SHAPE_INPUTS.items() if k in opcodes.BUILTIN}
ALWAYS_DYNAMIC = {opcodes.BUILTIN[k] for k in _ALWAYS_DYNAMIC if k in opcodes.BUILTIN}
DYNAMIC_WITH_DYNAMIC_INPUT = {opcodes.BUILTIN[k] for k in _DYNAMIC_WITH_DYNAMIC_INPUT}
FOLDS_AT_PREPARE = {opcodes.BUILTIN[k] for k in _FOLDS_AT_PREPARE}
SHAPE = opcodes.BUILTIN["SHAPE"]
WHILE, IF = opcodes.BUILTIN["WHILE"], opcodes.BUILTIN["IF"]


def first_dynamic_tensor(graph: Graph) -> tuple[Op, Tensor] | None:
    """The first (op, output) in plan order whose shape is not known when the subgraph is
    prepared, or None when every tensor is static."""
    return _first_dynamic(graph, frozenset())


def _first_dynamic(graph: Graph, visiting: frozenset[int]) -> tuple[Op, Tensor] | None:
    known: set[int] = set()

    def value_known(t: Tensor | None) -> bool:
        return t is None or t.is_constant or id(t) in known

    for op in graph.ops:
        if not op.outputs:
            continue
        code = op.builtin
        if code in ALWAYS_DYNAMIC:
            return op, op.outputs[0]
        if code in DYNAMIC_WITH_DYNAMIC_INPUT and op.input(0) is not None and op.input(0).is_dynamic:
            return op, op.outputs[0]
        if code in (WHILE, IF) and _control_flow_dynamic(op, visiting | {graph.index}):
            return op, op.outputs[0]
        if code == SHAPE:
            known.add(id(op.outputs[0]))
            continue
        for i in SHAPE_INPUTS.get(code, ()):
            if not value_known(op.input(i)):
                return op, op.outputs[0]
        if code in FOLDS_AT_PREPARE and all(value_known(t) for t in op.inputs):
            known.update(id(t) for t in op.outputs)
    return None


def _control_flow_dynamic(op: Op, visiting: frozenset[int]) -> bool:
    """WHILE / IF outputs are dynamic when a body or branch subgraph has a dynamic tensor or its
    outputs' shapes differ from the loop inputs / the other branch (tflite/kernels/while.cc,
    if.cc: body_has_dynamic_output_tensors / has_dynamic_output_tensors)."""
    graphs = op.graph.model.graphs
    opts = op.options
    names = ("bodySubgraphIndex",) if op.builtin == WHILE else ("thenSubgraphIndex", "elseSubgraphIndex")
    subs = [graphs[i] for i in (getattr(opts, n, -1) for n in names) if 0 <= i < len(graphs)]
    for g in subs:
        if g.index not in visiting and _first_dynamic(g, visiting) is not None:
            return True
    if op.builtin == WHILE:
        return any(len(g.outputs) != len(op.inputs) or any(
            o.signature != (i.signature if i is not None else o.signature) for o, i in zip(g.outputs, op.inputs))
            for g in subs)
    shapes = {tuple(t.signature for t in g.outputs) for g in subs}
    return len(shapes) > 1
