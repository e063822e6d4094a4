"""substitute-broadcast-to: BROADCAST_TO ==> nothing, where its readers broadcast by themselves;
TILE otherwise.

    z = ADD(BROADCAST_TO(x, shape), w)   ==>   z = ADD([RESHAPE](x), w)
    y = BROADCAST_TO(x, shape)           ==>   y = TILE([RESHAPE](x), shape / x.shape)

No GPU delegate generation has a parser for BROADCAST_TO (model_builder.cc NewOperationParser has none; LiteRT's ML
Drift accelerator refuses it: rules/support/profiles/litert_mldrift.py). A binary elementwise op
broadcasts its operands itself (tflite/kernels/add.cc, mul.cc, ... via
reference_ops::BroadcastBinaryFunction4DSlow), so when every reader is such an op and its other
operand already has the full shape, the readers can read x (a RESHAPE first adds the leading 1s
when x has fewer dimensions, since the classic delegate only broadcasts equal ranks well:
gpu_compatibility.cc ADD). The readers are judged by the profile with their new operand before anything
changes. Otherwise BROADCAST_TO(x) is TILE(x) with multiples target / x.shape: broadcasting
repeats each size-1 dimension, which is what TILE does (tflite/kernels/broadcast_to.cc, tile.cc).

Safety: exact (the same values are read or copied; nothing is computed differently).
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, Tensor, build
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.matching import B, int_values
from gpucompat.rewrites.substitute import Replacement, Substitution, refused

BROADCASTING = {B[n] for n in ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "POW")}


class SubstituteBroadcastTo(Substitution):
    name = "substitute-broadcast-to"
    safety = "exact"
    summary = "BROADCAST_TO disappears into the broadcasting ops that read it, or becomes TILE"
    replaces = ("BROADCAST_TO",)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        x, y = op.input(0), op.outputs[0]
        target = int_values(op.input(1))
        if target is None:
            return "target shape not constant"
        if tuple(target) != y.shape or x.rank > y.rank:
            return f"target shape {list(target)} does not match the output {list(y.shape)}"
        padded = (1,) * (y.rank - x.rank) + x.shape
        if any(a not in (1, b) for a, b in zip(padded, y.shape)):
            return f"{list(x.shape)} does not broadcast to {list(y.shape)}"
        src = x if padded == x.shape else r.reshape(x, padded)
        if not _readers_broadcast(y, src, r, ctx):
            multiples = [b // a for a, b in zip(padded, y.shape)]
            r.emit("TILE", [src, r.const("multiples", multiples)], y, fb.TileOptionsT())
        return None


def _readers_broadcast(y: Tensor, src: Tensor, r: Replacement, ctx: RewriteContext) -> bool:
    """When every reader of `y` is a broadcasting op that gives the same output from `src`, and
    the profile takes it that way: rewire them to `src` (in `r`) and say True."""
    graph = y.graph
    if graph.is_graph_output(y) or not y.consumers:
        return False
    trials = []
    for reader in y.consumers:
        if reader.builtin not in BROADCASTING:
            return False
        inputs = [src if t is y else t for t in reader.inputs]
        if np.broadcast_shapes(*(t.shape for t in inputs if t is not None)) != reader.outputs[0].shape:
            return False
        trials.append(build.operator(graph, reader.name, inputs, reader.outputs, reader.options, reader.version))
    if refused(Replacement(r.anchor, trials=trials), ctx):
        return False
    r.rewire.append((y, src))
    return True
