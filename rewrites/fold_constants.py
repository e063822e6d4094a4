"""fold-constants: ops whose value is known before the model reads its inputs become constants.

    DENSIFY(sparse constant)            ==>  dense constant
    DEQUANTIZE(fp16 / int8 constant)    ==>  float32 constant
    SHAPE(static x) -> SPLIT_V / STRIDED_SLICE / PACK / FILL / arithmetic ... (constants)
                                        ==>  the constant the chain computes

DENSIFY and DEQUANTIZE only where the chosen profile rejects the op (LiteRT's GPU accelerator
rejects DENSIFY and the DEQUANTIZE it feeds; the classic delegate folds both itself:
delegates/utils.cc FP16GraphPartitionHelper, model_builder.cc DENSIFY). The weights get bigger
(fp16 x2, int8 x4, sparse -> dense): the before/after model size shows the cost.

A shape chain (what the converter writes for `tf.shape(x)[0]`, Keras' Reshape and Flatten)
folds where the profile rejects one of its ops or its value decides another op's output shape:
the runtime does not fold PACK, CAST, ADD, ... at prepare, so a RESHAPE whose shape comes from
such a chain is a dynamic tensor and the delegate takes nothing (gpucompat/dynamic.py). A SHAPE
is known when its input's shape is: a static signature, before the first tensor the
dynamic-tensor gate finds (freeze-shapes makes dynamic-batch models so).

Values: fp16 -> fp32 is exact; int8 values are (q - zero_point) * scale, which is exact in fp32
up to the one rounding the runtime also does (tflite/kernels/dequantize.cc, per-tensor and
per-channel); a sparse tensor is densified, and a shape chain computed, by the reference
interpreter itself (its DENSIFY kernel, tflite/kernels/densify.cc, and the chain's own kernels),
so no op's semantics are re-implemented here. One run computes every DENSIFY and chain end of a
graph (pose_detection folds 38 DENSIFY); a chain end is computed again only when a shape its
chain reads has changed.

Safety: exact.
"""

from __future__ import annotations

import numpy as np

from gpucompat.dynamic import SHAPE_INPUTS, first_dynamic_tensor
from gpucompat.ir import Graph, Op, Tensor, build, dtypes
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import B, of_type
from gpucompat.rewrites.reference_values import ReferenceRun

QUANTIZED = {dtypes.INT8, dtypes.UINT8, dtypes.INT16}
# ops whose value is known when their input's shape is (not its values): what starts a chain
SHAPE_READERS = {B["SHAPE"], B["ZEROS_LIKE"]}
# ops a shape chain is made of: what TF, Keras and litert-torch exports write between SHAPE and a
# RESHAPE / SLICE / FILL / BROADCAST_TO (tf.split of a shape is SPLIT / SPLIT_V, tf.signal.frame
# takes FLOOR_DIV, MAXIMUM, RANGE and GATHER, a length rounded up goes through CAST, DIV and
# CEIL, a masked length through comparisons and SELECT_V2); every one is a pure function of its
# inputs, so its value is known when theirs are. RANK is known whatever the shape (the rank is
# stored). Ops that move data rather than compute sizes (TILE, BROADCAST_TO, TRANSPOSE) are left
# out: folding them writes their whole output into the file.
SHAPE_ARITHMETIC = SHAPE_READERS | {B[n] for n in (
    "RANK", "STRIDED_SLICE", "SLICE", "PACK", "UNPACK", "SPLIT", "SPLIT_V", "FILL", "CONCATENATION", "GATHER",
    "GATHER_ND", "CAST", "ADD", "SUB", "MUL", "DIV", "FLOOR_DIV", "FLOOR_MOD", "MAXIMUM", "MINIMUM", "NEG", "ABS",
    "CEIL", "FLOOR", "ROUND", "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "BROADCAST_ARGS", "REDUCE_PROD", "SUM",
    "REDUCE_MAX", "REDUCE_MIN", "RANGE", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL",
    "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_NOT", "SELECT", "SELECT_V2")}


class FoldConstants(Rewrite):
    name = "fold-constants"
    safety = "exact"
    priority = 20
    summary = ("constant DENSIFY / DEQUANTIZE the profile rejects become float constants; shape chains "
               "of static tensors become the constants they compute")

    def __init__(self):
        # DENSIFY outputs and chain-end values from one reference run, by tensor id: (tensor, the
        # shapes its chain's SHAPE ops read, value); valid while those shapes are unchanged
        # (constants never change, so a DENSIFY's value always is)
        self._computed: dict[int, tuple[Tensor, tuple, np.ndarray]] = {}

    def candidates(self, graph, ctx):
        known = known_values(graph)
        return [*of_type(graph, "DENSIFY", "DEQUANTIZE"), *chain_ends(graph, known)]

    def check(self, op: Op, ctx: RewriteContext) -> Match | str | None:
        if op.builtin in SHAPE_ARITHMETIC:
            return _check_chain(op, ctx)
        if feeds_quantized_weights(op):
            return None  # fold-quantized-weights: the same values, but not bit-exact on the interpreter
        return self.check_dequantize(op, ctx)

    def check_dequantize(self, op: Op, ctx: RewriteContext) -> Match | str | None:
        """DENSIFY / DEQUANTIZE of a constant, where the profile rejects the op."""
        src = op.input(0)
        if src is None or not src.is_constant:
            return None
        if not ctx.rejects(op):
            return "the profile takes it"
        if op.builtin == B["DEQUANTIZE"] and src.dtype != dtypes.FLOAT16 and (
                src.dtype not in QUANTIZED or src.quantization is None):
            return f"cannot dequantize a {src.dtype_name} constant"
        if op.builtin == B["DEQUANTIZE"] and src.data() is None:
            return "constant data does not match its shape"
        return Match(op, [op])

    def rewrite(self, match: Match, ctx: RewriteContext) -> None:
        op = match.anchor
        if op.builtin in SHAPE_ARITHMETIC:
            for out in [t for t in op.outputs if t.consumers or op.graph.is_graph_output(t)]:
                _replace_by_constant(out, self._reference_value(out))
            return
        out = op.outputs[0]
        value = self._reference_value(out) if op.builtin == B["DENSIFY"] else dequantize(op.input(0))
        op.graph.remove_op(op)
        _replace_by_constant(out, value)

    def _reference_value(self, out: Tensor) -> np.ndarray:
        """The value of a chain end or of a DENSIFY of a constant, as the reference interpreter
        computes it. One run computes every such value of the graph, so a model with many chains
        (EfficientNet: one per squeeze-and-excite block) or many sparse weights (pose_detection:
        38 DENSIFY) runs it once."""
        hit = self._computed.get(id(out))
        if hit is None or hit[0] is not out or hit[1] != _shapes_read(out):
            graph = out.graph
            known = known_values(graph)
            run = ReferenceRun(graph.model)
            for t in _reference_folded(graph, known):
                self._computed[id(t)] = (t, _shapes_read(t, known), run.value(t))
            hit = self._computed[id(out)]
        return hit[2]


def _reference_folded(graph: Graph, known: set[int]) -> list[Tensor]:
    """The tensors whose folded value comes from the reference interpreter: the outputs of
    DENSIFY ops of constants and the known outputs of chain ends."""
    dense = [op.outputs[0] for op in of_type(graph, "DENSIFY")
             if op.outputs and op.input(0) is not None and op.input(0).is_constant]
    return dense + [t for end in chain_ends(graph, known) for t in end.outputs if id(t) in known]


def _shapes_read(t: Tensor, known: set[int] | None = None) -> tuple:
    """The shapes the SHAPE and ZEROS_LIKE ops of `t`'s chain read (with constants, what its value
    depends on); none for a DENSIFY's output, whose value is its constant's. `known`: the graph's
    `known_values`, when the caller has them."""
    if t.producer.builtin not in SHAPE_ARITHMETIC:
        return ()
    chain = _chain(t.producer, known_values(t.graph) if known is None else known)
    return tuple(o.input(0).shape for o in chain if o.builtin in SHAPE_READERS)


def feeds_quantized_weights(op: Op) -> bool:
    """True for a DEQUANTIZE of an int8 / uint8 constant whose output is a FULLY_CONNECTED's weights."""
    src = op.input(0)
    return (op.builtin == B["DEQUANTIZE"] and src is not None and src.is_constant and src.dtype in QUANTIZED
            and bool(op.outputs) and any(c.builtin == B["FULLY_CONNECTED"] and c.input(1) is op.outputs[0]
                                         for c in op.outputs[0].consumers))


def _replace_by_constant(out: Tensor, value: np.ndarray) -> None:
    """Every reader of `out` reads a new constant holding `value` instead."""
    folded = build.constant(out.graph, out.name, value.astype(dtypes.numpy_dtype(out.dtype)))
    out.graph.replace_uses(out, folded)


def known_values(graph: Graph, all_static: bool = False) -> set[int]:
    """Ids of the non-constant tensors whose value is fixed whatever the inputs: outputs of SHAPE
    (ZEROS_LIKE) on a tensor of known shape, of RANK, and of shape arithmetic over
    constants and such tensors.
    `all_static`: as if every tensor had a static shape (what freeze-shapes is about to make)."""
    gate = None if all_static else first_dynamic_tensor(graph)
    stop = gate[0].index if gate else len(graph.ops)
    known: set[int] = set()
    for i, op in enumerate(graph.ops):
        if op.builtin not in SHAPE_ARITHMETIC or not op.outputs:
            continue
        if op.builtin in SHAPE_READERS:
            ok = all_static or (i < stop and not op.input(0).is_dynamic)
        elif op.builtin == B["RANK"]:
            ok = True
        else:
            ok = all(t.is_constant or id(t) in known for t in op.present_inputs)
        if ok:
            known.update(id(t) for t in op.outputs)
    return known


def chain_ends(graph: Graph, known: set[int]) -> list[Op]:
    """The ops whose known outputs are read by ops that are not themselves known (the value a
    chain hands on); a chain ending at a model output is left alone."""
    ends = []
    for op in graph.ops:
        if any(id(t) in known and not graph.is_graph_output(t) and any(
                not all(id(o) in known for o in c.outputs) for c in t.consumers) for t in op.outputs):
            ends.append(op)
    return ends


def _chain(op: Op, known: set[int]) -> list[Op]:
    """`op` and the known ops it reads from, back to constants."""
    seen: dict[int, Op] = {}
    stack = [op]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen[id(o)] = o
        stack.extend(t.producer for t in o.present_inputs if id(t) in known and t.producer is not None)
    return sorted(seen.values(), key=lambda o: o.index)


def _check_chain(op: Op, ctx: RewriteContext) -> Match | str:
    """Fold a chain end when the profile rejects an op of the chain or its value decides the
    shape of the op reading it."""
    chain = _chain(op, known_values(op.graph))
    decides_shape = any(any(c.input(i) is t for i in SHAPE_INPUTS.get(c.builtin, ()))
                        for t in op.outputs for c in t.consumers)
    if not decides_shape and not any(ctx.rejects(o) for o in chain):
        return "the profile takes every op of the chain and no output shape depends on it"
    return Match(op, chain)


def dequantize(t: Tensor) -> np.ndarray:
    """The float32 value of a constant fp16 or quantized tensor."""
    q = t.data()
    if t.dtype == dtypes.FLOAT16:
        return q.astype(np.float32)
    params = t.quantization
    scale = np.asarray(params.scale, dtype=np.float32)
    zero = np.asarray(params.zeroPoint if params.zeroPoint is not None else [0], dtype=np.int64)
    if scale.size > 1:
        shape = [1] * q.ndim
        shape[params.quantizedDimension] = scale.size
        scale, zero = scale.reshape(shape), (zero.reshape(shape) if zero.size > 1 else zero)
    return (q.astype(np.int64) - zero).astype(np.float32) * scale
