"""rgb-to-rgba: a float [B, H, W, 3] model input becomes [B, H, W, 4].

    x[...,3] -> (SUB|ADD|MUL|DIV per-channel constant | RELU-like)* -> CONV_2D / FULLY_CONNECTED
    ==>  x[...,4] -> same ops with 4-channel constants -> weights with a zero 4th input channel

The GPU delegate stores tensors in slices of 4 channels, so a 3-channel input costs a copy into
RGBA layout on every invoke (research §5.2, tflite/g3doc/performance/gpu.md "Image data
channels"). Feeding RGBA avoids it. Per-channel pre-processing constants get a 4th entry (0 for
ADD/SUB, 1 for MUL/DIV, so nothing becomes infinite), and the first convolution or fully
connected layer gets zero weights for the 4th channel: outputs do not depend on the alpha values.
Every reader of the input (and of the pre-processed tensors) must absorb the extra channel;
otherwise the rewrite refuses rather than slicing the channel off again.

Safety: signature (the model's input changes shape); only with --unsafe-fixes. The outputs are
the same for any finite alpha, up to float summation order in the convolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpucompat.ir import Op, Tensor, build, dtypes
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import B, is_channel_constant, other_input

FILL = {B["ADD"]: 0.0, B["SUB"]: 0.0, B["MUL"]: 1.0, B["DIV"]: 1.0}
BOUNDED = {B[n] for n in ("RELU", "RELU6", "RELU_N1_TO_1", "TANH", "LOGISTIC", "ABS", "NEG", "LEAKY_RELU",
                          "HARD_SWISH")}
ABSORB = {B["CONV_2D"], B["FULLY_CONNECTED"]}


@dataclass
class Region(Match):
    """The input, the tensors that widen with it, and the ops that change."""

    source: Tensor | None = None
    widened: list[Tensor] = field(default_factory=list)
    elementwise: list[Op] = field(default_factory=list)
    absorbers: list[Op] = field(default_factory=list)


class RgbToRgba(Rewrite):
    name = "rgb-to-rgba"
    safety = "signature"
    priority = 90
    summary = "a 3-channel float input becomes 4-channel; the first layers ignore the 4th channel"

    def candidates(self, graph, ctx):
        return [t.consumers[0] for t in graph.inputs
                if t.rank == 4 and t.shape[-1] == 3 and t.dtype == dtypes.FLOAT32 and t.consumers]

    def check(self, op: Op, ctx: RewriteContext) -> Region | str | None:
        x = next(t for t in op.present_inputs if t in op.graph.inputs)
        region = Region(op, source=x)
        stack = [x]
        while stack:
            t = stack.pop()
            region.widened.append(t)
            if t is not x and t.graph.is_graph_output(t):
                return f"{t.name!r} is a model output"
            for reader in t.consumers:
                why = _admit(reader, t, region)
                if why:
                    return why
                if reader in region.elementwise and reader.outputs[0] not in region.widened:
                    stack.append(reader.outputs[0])
        region.ops = [*region.elementwise, *region.absorbers]
        return region

    def rewrite(self, match: Region, ctx: RewriteContext) -> None:
        graph = match.source.graph
        for t in match.widened:
            build.reshape_tensor(t, t.shape[:-1] + (4,), t.signature[:-1] + (4,))
        for op in match.elementwise:
            if op.builtin in FILL:
                i = next(i for i, t in enumerate(op.inputs) if t is not None and t.is_constant)
                op.inputs[i] = _widen_constant(op, op.inputs[i], FILL[op.builtin])
        for op in match.absorbers:
            w = op.input(1).data()
            zeros = np.zeros(w.shape[:-1] + (1,), dtype=w.dtype)
            op.inputs[1] = build.constant(graph, f"{op.input(1).name}/rgba", np.concatenate([w, zeros], axis=-1))
        graph.link()


def _admit(reader: Op, t: Tensor, region: Region) -> str | None:
    """Add `reader` to the region, or say why it cannot take a 4th channel of `t`."""
    if reader in region.elementwise or reader in region.absorbers:
        return None
    if reader.builtin in ABSORB:
        w = reader.input(1)
        if reader.input(0) is not t or w is None or not w.is_constant or w.data() is None:
            return f"{reader.name} reads the input through runtime weights"
        if w.shape[-1] != 3:
            return f"{reader.name} does not contract over the 3 channels"
        region.absorbers.append(reader)
        return None
    if reader.builtin in BOUNDED:
        region.elementwise.append(reader)
        return None
    if reader.builtin in FILL:
        c = other_input(reader, t)
        if c is None or not is_channel_constant(c, 3):
            return f"{reader.name} combines the input with a non per-channel operand"
        if reader.builtin == B["DIV"] and reader.input(0) is not t:
            return "DIV divides by the input (the alpha channel could be 0)"
        region.elementwise.append(reader)
        return None
    return f"{reader.name} cannot absorb a 4th channel (it would need a slice)"


def _widen_constant(op: Op, c: Tensor, fill: float) -> Tensor:
    """A per-channel constant with a 4th channel of `fill` (a scalar or size-1 one stays)."""
    v = c.data()
    if v.ndim == 0 or v.shape[-1] == 1:
        return c
    extra = np.full(v.shape[:-1] + (1,), fill, dtype=v.dtype)
    return build.constant(op.graph, f"{c.name}/rgba", np.concatenate([v, extra], axis=-1))
