"""substitute-mirror-pad: MIRROR_PAD in a mode the profile lacks ==> SLICE rows + CONCATENATION.

    y = MIRROR_PAD(x, [[t, b], ...], SYMMETRIC)
    ==>  per padded axis: CONCATENATION(x[t-1], ..., x[0], x, x[n-1], ..., x[n-b])

The classic GPU delegate mirrors in REFLECT mode only (gpu_compatibility.cc pad group,
MIRROR_PAD), and early generations have no MIRROR_PAD at all. Mirror padding only
copies rows: per axis, the rows before x are x's first rows in reverse order and the rows after
are its last rows in reverse, with (REFLECT) or without (SYMMETRIC) skipping the edge row
itself (tflite/kernels/mirror_pad.cc: offset 1 for REFLECT, 0 for SYMMETRIC). Each copied row is
a one-row SLICE; one CONCATENATION per padded axis puts them around x, axis after axis, so the
corners come out as the kernel makes them (mirrored along both axes).

Safety: exact (data is copied, never computed).
"""

from __future__ import annotations

from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, Tensor
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.matching import int_values
from gpucompat.rewrites.substitute import Replacement, Substitution


class SubstituteMirrorPad(Substitution):
    name = "substitute-mirror-pad"
    safety = "exact"
    summary = "MIRROR_PAD the profile rejects becomes one-row SLICEs concatenated around the input"
    replaces = ("MIRROR_PAD",)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        x, y = op.input(0), op.outputs[0]
        pads = int_values(op.input(1))
        if pads is None:
            return "paddings not constant"
        if pads.shape != (x.rank, 2) or (pads < 0).any():
            return f"paddings {pads.tolist()} are not one non-negative pair per axis"
        edge = 1 if op.options is None or op.options.mode == fb.MirrorPadMode.REFLECT else 0
        axes = [a for a in range(x.rank) if pads[a].any()]
        if any(max(pads[a]) > x.shape[a] - edge for a in axes):
            return "padding wider than the axis it mirrors"
        if not axes:
            r.reshape(x, y)
            return None
        current = x
        for a in axes:
            before, after = int(pads[a][0]), int(pads[a][1])
            n = current.shape[a]
            rows = [edge + before - 1 - j for j in range(before)], [n - 1 - edge - j for j in range(after)]
            parts = [*(_row(r, current, a, i) for i in rows[0]), current, *(_row(r, current, a, i) for i in rows[1])]
            shape = list(current.shape)
            shape[a] += before + after
            opts = fb.ConcatenationOptionsT()
            opts.axis = a
            current = r.emit("CONCATENATION", parts, y if a == axes[-1] else shape, opts)
        return None


def _row(r: Replacement, x: Tensor, axis: int, index: int) -> Tensor:
    """The one-row slice x[..., index:index+1, ...] along `axis`."""
    begin, size = [0] * x.rank, list(x.shape)
    begin[axis], size[axis] = index, 1
    return r.slice(x, begin, size)
