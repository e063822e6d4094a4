"""substitute-split: SPLIT / SPLIT_V ==> one SLICE per output.

    a, b, c = SPLIT(axis, x)      ==>   a = SLICE(x, ...), b = SLICE(x, ...), c = SLICE(x, ...)

The classic GPU delegate puts SPLIT and SPLIT_V in an exclusion set when OpenCL is unavailable
(the OpenGL backend has no split kernel: tflite/delegates/gpu/delegate.cc DelegatePrepare,
and gl/kernels/registry.cc); SLICE has an OpenGL shader. Each output is the slice of x that
starts where the previous one ended (tflite/kernels/split.cc, split_v.cc: equal parts, or the
size_splits with one -1 taking the rest).

Safety: exact (data is copied, never computed).
"""

from __future__ import annotations

from gpucompat.ir import Op, Tensor
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.matching import B, int_values
from gpucompat.rewrites.substitute import Replacement, Substitution


class SubstituteSplit(Substitution):
    name = "substitute-split"
    safety = "exact"
    summary = "SPLIT / SPLIT_V become one SLICE per output (for backends without a split kernel)"
    replaces = ("SPLIT", "SPLIT_V")

    def data(self, op: Op) -> Tensor | None:
        return op.input(1) if op.builtin == B["SPLIT"] else op.input(0)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        x = self.data(op)
        axis = int_values(op.input(0) if op.builtin == B["SPLIT"] else op.input(2))
        if axis is None or axis.size != 1:
            return "axis not a constant scalar"
        a = int(axis.reshape(-1)[0]) % x.rank
        start = 0
        for out in op.outputs:
            size = list(x.shape)
            size[a] = out.shape[a]
            begin = [0] * x.rank
            begin[a] = start
            r.slice(x, begin, size, out=out)
            start += out.shape[a]
        if start != x.shape[a]:
            return f"the outputs cover {start} of {x.shape[a]} rows"
        return None
