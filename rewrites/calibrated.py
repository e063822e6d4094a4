"""What the rewrites for forms the real accelerator computes wrongly share (explicit-rank-4,
scalar-to-channels): they act only where the numerics calibration (rules/support/calibration/, or
a calibrated profile file's table) records the op's form wrong under the chosen profile, and only
when the form they make is recorded right; the op runs at another shape between two RESHAPEs, the
last writing the op's own output tensor."""

from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Sequence

from gpucompat.ir import Op, Tensor, build
from gpucompat.rewrites.engine import Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules.support import calibration


class CalibratedRewrite(Rewrite):
    """Subclasses name the op types they look at (`op_types`), say what the op becomes (`plan`)
    and name the new form in refusals (`what`)."""

    op_types: tuple[str, ...]
    what: str

    def candidates(self, graph, ctx):
        return of_type(graph, *self.op_types)

    @abstractmethod
    def plan(self, op: Op, r: Replacement) -> Op | str | None:
        """Fill `r` and return the op at its new shape; a reason when the op cannot be planned,
        None when the pattern does not apply to it."""

    def wanted(self, op: Op, ctx: RewriteContext) -> bool:
        """Whether the rewrite acts at `op`: its form is recorded wrong at fp32."""
        return recorded_wrong(op, ctx)

    def check(self, op: Op, ctx: RewriteContext) -> Replacement | str | None:
        if not self.wanted(op, ctx):
            return None
        r = Replacement(op, [op], ctx=ctx)
        marks = r.marks()
        new = self.plan(op, r)
        why = (not_measured_right(new, self.what, ctx) or unbuilt(r.new, ctx)) if isinstance(new, Op) else new
        if why or new is None:
            r.forget(marks)
            return why
        return r

    def rewrite(self, match: Replacement, ctx: RewriteContext) -> None:
        match.splice()


def recorded_wrong(op: Op, ctx: RewriteContext) -> bool:
    """Whether the profile's numerics table records `op`'s form wrong at fp32, or (the GL
    delegate's table) failing to build: either way the GPU does not give its values."""
    table = calibration.for_profile(ctx.profile, ctx.options.backend)
    if table is None:
        return False
    key = table.key(op)
    return table.status(key, "fp32") == "wrong" or table.build_failure(key) is not None


def unbuilt(ops: Sequence[Op], ctx: RewriteContext) -> str | None:
    """Why the new ops would cost the model its delegation: one the profile takes and then cannot
    build (a RESHAPE the GL delegate fails on, moving a batch axis), None when there is none."""
    for new in ops:
        verdict = ctx.verdict(new)
        if not verdict.ok and verdict.layer in ("parse", "backend"):
            return f"the profile cannot build its new {new.name}, and the whole delegation would fail: {verdict.reason}"
    return None


def rank4(shape: Sequence[int]) -> tuple[int, ...]:
    """`shape` with leading 1s up to rank 4."""
    return (1,) * (4 - len(shape)) + tuple(shape)


def at_shape(op: Op, r: Replacement, inputs: Sequence[Tensor | None], shape: Sequence[int], label: str) -> Op:
    """Append to `r` the op (its options and version) on `inputs`, writing a new tensor of `shape`
    named after its output and `label`; return the new op."""
    out = op.outputs[0]
    y = build.tensor(op.graph, f"{out.name}/{label}", shape, out.dtype)
    new = build.operator(op.graph, op.name, inputs, [y], copy.copy(op.options), op.version)
    r.new.append(new)
    return new


def reshaped(op: Op, r: Replacement, inputs: Sequence[Tensor | None], shape: Sequence[int], label: str) -> Op:
    """`at_shape`, and a RESHAPE of its output into the op's own output; return the new op."""
    new = at_shape(op, r, inputs, shape, label)
    r.reshape(new.outputs[0], op.outputs[0])
    return new


def not_measured_right(new: Op, what: str, ctx: RewriteContext) -> str | None:
    """Why `new` will not do: its form is not recorded right at both precisions in the profile's
    table, or the profile rejects it."""
    table = calibration.for_profile(ctx.profile, ctx.options.backend)
    key = None if table is None else table.key(new)
    if table is None or any(table.status(key, p) != "right" for p in ("fp32", "fp16")):
        return f"its {what} form [{key}] is not one the delegate was measured to compute right"
    verdict = ctx.verdict(new)
    return None if verdict.ok else f"the profile rejects the {what} {new.name}: {verdict.reason}"
