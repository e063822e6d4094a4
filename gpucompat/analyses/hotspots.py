"""Reshape hotspots: data-movement ops that cost GPU time without doing any arithmetic.

Facts: the docs single out BATCH_TO_SPACE, SPACE_TO_BATCH, SPACE_TO_DEPTH "and
similar" as expensive and advise removing them (tflite/g3doc/performance/gpu.md "Reshape
operations"); RESHAPE is a real kernel unless it is an identity (remove_identity_reshape) and takes
the cheaper Reshapex4 kernel only when both channel counts are multiples of 4
(common/selectors/operation_selector.cc SelectReshape). CONCATENATION on the channel axis writes
slices in place; on any other axis it is a copy kernel. Bytes moved = bytes written per inference
(every output element is read once and written once), at the tensor's own element size."""

from __future__ import annotations

from dataclasses import dataclass

from gpucompat.ir import Op, opcodes
from gpucompat.layout import bhwc

_B = opcodes.BUILTIN
ALWAYS = {_B[n] for n in ("SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE",
                          "TRANSPOSE", "GATHER")}
CONVS = {_B["CONV_2D"], _B["DEPTHWISE_CONV_2D"]}
FOLD_FIX = ("gpucompat fix (fold-space-to-batch) turns SPACE_TO_BATCH_ND -> conv -> BATCH_TO_SPACE_ND "
            "into one dilated conv")


@dataclass
class Hotspot:
    """One data-movement op and what it costs."""

    subgraph: int
    index: int
    op: str
    placement: str
    bytes_moved: int
    detail: str
    fix: str | None


def hotspots(model, result) -> list[Hotspot]:
    """Every costly data-movement op, most bytes first."""
    placement = {(o.subgraph, o.index): o.placement for o in result.ops}
    out = []
    for g in model.graphs:
        for op in g.ops:
            found = judge(op)
            if found is not None:
                detail, fix = found
                out.append(Hotspot(g.index, op.index, op.name, placement[(g.index, op.index)],
                                   sum(t.nbytes for t in op.outputs), detail, fix))
    out.sort(key=lambda h: (-h.bytes_moved, h.subgraph, h.index))
    return out


def judge(op: Op) -> tuple[str, str | None] | None:
    """(why it is costly, the fix if one exists) for a costly data-movement op, else None."""
    code = op.builtin
    if code in ALWAYS:
        return f"{op.name} moves every element", _fold_fix(op)
    x, y = op.input(0), op.outputs[0] if op.outputs else None
    if x is None or y is None:
        return None
    if code == _B["RESHAPE"]:
        src, dst = bhwc(x.shape), bhwc(y.shape)
        if src is None or dst is None or src == dst:
            return None  # identity in the delegate's layout: removed by remove_identity_reshape
        if src[3] % 4 == 0 and dst[3] % 4 == 0:
            return None  # Reshapex4: whole slices
        return (f"RESHAPE {list(x.shape)} -> {list(y.shape)}: channels {src[3]} -> {dst[3]} are not both "
                f"multiples of 4, so the generic per-element kernel runs", None)
    if code == _B["CONCATENATION"]:
        axis = getattr(op.options, "axis", -1)
        axis = axis + y.rank if axis < 0 else axis
        if y.rank and axis != y.rank - 1:
            return f"CONCATENATION on axis {axis} (not the channel axis) copies every element", None
    return None


def _fold_fix(op: Op) -> str | None:
    """The fold rewrite's name when `op` is half of an STB -> conv -> BTS chain."""
    code = op.builtin
    if code == _B["SPACE_TO_BATCH_ND"]:
        return FOLD_FIX if any(c.builtin in CONVS for t in op.outputs for c in t.consumers) else None
    if code == _B["BATCH_TO_SPACE_ND"]:
        x = op.input(0)
        return FOLD_FIX if _conv_upstream(x) else None
    return None


def _conv_upstream(t, depth: int = 4) -> bool:
    """A conv produces `t` directly or through a short chain of single-input ops."""
    for _ in range(depth):
        if t is None or t.producer is None:
            return False
        if t.producer.builtin in CONVS:
            return True
        t = t.producer.input(0)
    return False
