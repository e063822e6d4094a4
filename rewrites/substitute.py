"""substitute: an op the chosen profile rejects becomes ops it takes that compute the same thing.

Each family is its own rewrite with its own safety class, in a `substitute_*.py` module:

    substitute-l2-normalization   L2_NORMALIZATION  ==> SQUARE, SUM, SQRT, MAXIMUM, DIV   (equivalent)
    substitute-relu-0-to-1        RELU_0_TO_1       ==> RELU, MINIMUM(1)                (exact)
    substitute-transpose-conv-activation
                                  TRANSPOSE_CONV v4 (a fused activation)
                                                    ==> TRANSPOSE_CONV v3 + RELU | RELU6 | RELU_N1_TO_1 (exact)
    substitute-broadcast-to       BROADCAST_TO      ==> nothing (readers broadcast) | TILE  (exact)
    substitute-mirror-pad         MIRROR_PAD        ==> SLICE rows + CONCATENATION      (exact)
    substitute-gather             GATHER / GATHER_ND with constant indices selecting a box
                                                    ==> SLICE | STRIDED_SLICE [+ RESHAPE] (exact)
    substitute-split              SPLIT / SPLIT_V   ==> one SLICE per output            (exact)
    substitute-embedding-lookup   EMBEDDING_LOOKUP  ==> GATHER along axis 0             (exact)

What they share lives here: a substitution only looks at ops the profile rejects (an op the
profile takes is not a candidate and is not traced), builds its replacement ops off to the side,
asks the profile about every one of them, and refuses with the profile's reason when any would be
rejected too, so a substitution never trades one CPU op for another. The last replacement op
writes the replaced op's own output tensor, so names, model outputs and signature defs stay.

`--rewrite substitute` (or `--skip substitute`) names the whole family (rewrites/__init__.py).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gpucompat.ir import Op, Tensor, build, dtypes
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type

FAMILY = "substitute"


@dataclass
class Replacement(Match):
    """The ops that replace `anchor` (built, not yet in the plan), the tensors whose readers
    move to another tensor, and ops whose verdict must hold though they are not new (readers
    that will read another tensor: `trials`)."""

    new: list[Op] = field(default_factory=list)
    rewire: list[tuple[Tensor, Tensor]] = field(default_factory=list)
    trials: list[Op] = field(default_factory=list)
    ctx: RewriteContext | None = None  # lets `slice` pick the slicing op the profile takes

    @property
    def graph(self):
        return self.anchor.graph

    def emit(self, op_name: str, inputs: Sequence[Tensor | None], out: Tensor | Sequence[int],
             options=None, dtype: int | None = None, version: int = 1) -> Tensor:
        """Append a replacement op writing `out` (an existing tensor, or a new tensor of that shape
        named after the replaced op's output, of `dtype`, by default the replaced op's output type)
        at `version`; return its output."""
        if not isinstance(out, Tensor):
            base = self.anchor.outputs[0]
            out = build.tensor(self.graph, f"{base.name}/{op_name.lower()}_{len(self.new)}", out,
                               base.dtype if dtype is None else dtype)
        self.new.append(build.operator(self.graph, op_name, inputs, [out], options, version))
        return out

    def const(self, what: str, value) -> Tensor:
        """A new constant named after the replaced op's output; Python ints become INT32."""
        value = np.asarray(value)
        if value.dtype.kind in "iu":
            value = value.astype(np.int32)
        return build.constant(self.graph, f"{self.anchor.outputs[0].name}/{what}_{len(self.new)}", value)

    def slice(self, x: Tensor, begin: Sequence[int], size: Sequence[int], step: Sequence[int] | None = None,
              out: Tensor | None = None) -> Tensor:
        """x[begin : begin + size*step : step] per axis: a SLICE when every step is 1 and the
        profile takes it, else a STRIDED_SLICE (positive strides, no masks)."""
        from ai_edge_litert import schema_py_generated as fb

        shape = tuple(int(s) for s in size)
        step = list(step) if step is not None else [1] * len(shape)
        if all(s == 1 for s in step):
            made = self.emit("SLICE", [x, self.const("begin", begin), self.const("size", size)],
                             out or shape, fb.SliceOptionsT())
            if self.ctx is None or not self.ctx.rejects(self.new[-1]):
                return made
            self.new.pop()  # generations before SLICE (2019) have STRIDED_SLICE; out is reused
            out = made
        end = [b + (n - 1) * s + 1 for b, n, s in zip(begin, size, step)]
        return self.emit("STRIDED_SLICE", [x, self.const("begin", begin), self.const("end", end),
                                           self.const("strides", step)], out or shape, fb.StridedSliceOptionsT())

    def marks(self) -> tuple[int, int]:
        """How many tensors and buffers the model has now (what `forget` goes back to)."""
        return len(self.graph.tensors), len(self.graph.model.buffers)

    def forget(self, marks: tuple[int, int]) -> None:
        """Drop the tensors and buffers made since `marks`: a refusal leaves the graph as it was."""
        del self.graph.tensors[marks[0]:]
        if self.graph.model.fb.buffers is not None:
            del self.graph.model.fb.buffers[marks[1]:]

    def splice(self) -> None:
        """Put the new ops where the anchor was, and move the rewired tensors' readers."""
        graph = self.graph
        graph.replace_op(self.anchor, self.new)
        for old, new in self.rewire:
            graph.replace_uses(old, new)

    def reshape(self, x: Tensor, out: Tensor | Sequence[int]) -> Tensor:
        """RESHAPE x into the tensor `out`, or into a new tensor of shape `out`."""
        from ai_edge_litert import schema_py_generated as fb

        shape = [int(d) for d in (out.shape if isinstance(out, Tensor) else out)]
        opts = fb.ReshapeOptionsT()
        opts.newShape = np.asarray(shape, dtype=np.int32)
        # the input's own type: a comparison reads floats and writes bools
        return self.emit("RESHAPE", [x, self.const("shape", shape)], out, opts, x.dtype)


class Substitution(Rewrite):
    """Shared candidate filter, trial verdicts and splice; subclasses name the ops they replace
    (`replaces`) and build the replacement (`plan`)."""

    priority = 30  # after cleanup and fold-constants, before the fusions
    replaces: ClassVar[tuple[str, ...]]

    def candidates(self, graph, ctx):
        return of_type(graph, *self.replaces)

    def data(self, op: Op) -> Tensor | None:
        """The input that carries the data (SPLIT reads it second)."""
        return op.input(0)

    @abstractmethod
    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        """Fill `r` with the replacement of `op`, or say why there is none."""

    def check(self, op: Op, ctx: RewriteContext) -> Replacement | str | None:
        if not ctx.rejects(op):
            return None
        return planned(op, [op], ctx, lambda r: _static_float(op, self.data(op)) or self.plan(op, r, ctx))

    def rewrite(self, match: Replacement, ctx: RewriteContext) -> None:
        match.splice()


def planned(anchor: Op, replaced: list[Op], ctx: RewriteContext,
            plan: Callable[[Replacement], str | None]) -> Replacement | str:
    """The Replacement of `replaced` (anchored at `anchor`) that `plan` fills, or why there is
    none: `plan`'s reason, or the profile's for a replacement op it rejects. A refusal removes the
    tensors and buffers the plan made, leaving the graph as it was."""
    r = Replacement(anchor, replaced, ctx=ctx)
    marks = r.marks()
    why = plan(r) or refused(r, ctx)
    if why:
        r.forget(marks)
        return why
    return r


def _static_float(op: Op, data: Tensor | None) -> str | None:
    """Substitutions move float32 data of known shape (new ops are written at version 1, which
    covers float32 for every op used here: tflite/tools/versioning/op_version.cc)."""
    if data is None:
        return "the data input is missing"
    for t in (data, *op.outputs):
        if t.dtype != dtypes.FLOAT32:
            return f"{t.name!r} is {t.dtype_name}, not FLOAT32"
        if t.is_dynamic:
            return f"{t.name!r} has a dynamic shape"
    return None


def refused(r: Replacement, ctx: RewriteContext) -> str | None:
    """The profile's reason for rejecting a replacement or rewired op, None when it takes all."""
    for op in (*r.new, *r.trials):
        v = ctx.verdict(op)
        if not v.ok:
            return f"the profile rejects the replacement {op.name} as well: {v.reason}"
    return None
