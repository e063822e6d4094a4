"""cleanup: ops that do nothing, or that the next op undoes.

    RESHAPE / TRANSPOSE / CAST that change nothing  ==>  removed
    RESHAPE(RESHAPE(x))                             ==>  RESHAPE(x)
    TRANSPOSE(TRANSPOSE(x)), perms cancel            ==>  x
    SQUEEZE / EXPAND_DIMS the profile rejects        ==>  RESHAPE (the GPU delegate has a reshape
                                                        kernel, and no parser for either: model_builder.cc)
    an op nobody reads (no side effects)            ==>  removed

Unused tensors go after every rewrite (Graph.cleanup) and unused buffers when the model is saved
(ir.buffers.compact_buffers). An op whose output is a model output is never bypassed: the output
tensor keeps its name for the signature defs.

Safety: exact (data is moved, never computed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpucompat.ir import Op, build
from gpucompat.ir.effects import has_side_effect
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import B, int_values, sole_reader


@dataclass
class Step(Match):
    """What to do at the candidate."""

    action: Callable[[], None] | None = None


class Cleanup(Rewrite):
    name = "cleanup"
    safety = "exact"
    priority = 10
    summary = "remove identity reshapes/transposes/casts, cancelling pairs, dead ops; SQUEEZE/EXPAND_DIMS to RESHAPE"

    def candidates(self, graph, ctx):
        return list(graph.ops)

    def check(self, op: Op, ctx: RewriteContext) -> Step | str | None:
        graph = op.graph
        if op.outputs and not has_side_effect(op) and not any(
                t.consumers or graph.is_graph_output(t) for t in op.outputs):
            return Step(op, [op], lambda: graph.remove_op(op))
        handler = _HANDLERS.get(op.builtin)
        return handler(op, ctx) if handler else None

    def rewrite(self, match: Step, ctx: RewriteContext) -> None:
        match.action()


def _bypass(op: Op, source) -> Step | str:
    """Readers of op's output read `source` instead (not for model outputs)."""
    out = op.outputs[0]
    if op.graph.is_graph_output(out):
        return "output is a model output"
    return Step(op, [op], lambda: op.graph.replace_uses(out, source))


def _reshape(op: Op, ctx) -> Step | str | None:
    src, out = op.input(0), op.outputs[0]
    if src.signature == out.signature and src.dtype == out.dtype:
        return _bypass(op, src)
    prev = src.producer
    if prev is not None and prev.builtin == B["RESHAPE"] and sole_reader(src) is op:
        return Step(op, [prev, op], lambda: op.set_input(0, prev.input(0)))
    return None


def _permutation(op: Op) -> np.ndarray | None:
    """A TRANSPOSE's constant permutation when it is one of its input's axes, else None. The kernel
    refuses indices outside [0, rank) (tflite/kernels/transpose.cc Prepare: "permutations array is
    out of bounds"); a damaged model may hold anything there."""
    perm, x = int_values(op.input(1)), op.input(0)
    if perm is None or x is None or perm.ndim != 1:
        return None
    return perm if np.array_equal(np.sort(perm), np.arange(x.rank)) else None


def _transpose(op: Op, ctx) -> Step | str | None:
    perm = _permutation(op)
    if perm is None:
        return "permutation not constant, or not a permutation of the input's axes"
    if np.array_equal(perm, np.arange(perm.size)):
        return _bypass(op, op.input(0))
    prev = op.input(0).producer
    if prev is not None and prev.builtin == B["TRANSPOSE"] and sole_reader(op.input(0)) is op:
        inner = _permutation(prev)
        if inner is not None and inner.size == perm.size and np.array_equal(inner[perm], np.arange(perm.size)):
            step = _bypass(op, prev.input(0))
            if isinstance(step, Step):
                step.ops = [prev, op]
            return step
    return None


def _cast(op: Op, ctx) -> Step | str | None:
    return _bypass(op, op.input(0)) if op.input(0).dtype == op.outputs[0].dtype else None


def _to_reshape(op: Op, ctx: RewriteContext) -> Step | str | None:
    """SQUEEZE / EXPAND_DIMS -> RESHAPE to the output's shape, where the profile rejects them and
    takes the RESHAPE instead."""
    if not ctx.rejects(op):
        return None
    sig = op.outputs[0].signature
    if sum(1 for d in sig if d < 0) > 1:
        return "more than one dynamic dimension"
    graph = op.graph
    trial = build.operator(graph, "RESHAPE", [op.input(0), None], op.outputs)
    if ctx.rejects(trial):
        return "the profile rejects the RESHAPE as well"

    def retype():
        shape = build.constant(graph, f"{op.outputs[0].name}/shape", np.asarray(sig, dtype=np.int32))
        build.retype(op, "RESHAPE")
        op.set_inputs([op.input(0), shape])
    return Step(op, [op], retype)


_HANDLERS = {B["RESHAPE"]: _reshape, B["TRANSPOSE"]: _transpose, B["CAST"]: _cast,
             B["SQUEEZE"]: _to_reshape, B["EXPAND_DIMS"]: _to_reshape}
