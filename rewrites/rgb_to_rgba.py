"""rgb-to-rgba: a float [B, H, W, 3] model input becomes [B, H, W, 4].

    x[...,3] -> (SUB|ADD|MUL|DIV per-channel constant | RELU-like | DEPTHWISE_CONV_2D)*
             -> CONV_2D / FULLY_CONNECTED
    ==>  x[...,4] -> same ops with 4-channel constants -> weights with a zero 4th input channel

The GPU delegate stores tensors in slices of 4 channels, so a 3-channel input costs a copy into
RGBA layout on every invoke (delegate.cc SetInputsAndOutputs, tflite/g3doc/performance/gpu.md "Image data
channels"). Feeding RGBA avoids it. Per-channel pre-processing constants get a 4th entry (0 for
ADD/SUB, 1 for MUL/DIV, so nothing becomes infinite), and the first convolution or fully
connected layer gets zero weights for the 4th channel: outputs do not depend on the alpha values.
A depthwise convolution on the way cannot drop the alpha channel (each input channel has its own
outputs), so it carries it: zero weights and zero bias for the new channel make its extra
outputs (the last `depth_multiplier` channels: output channel = input channel x multiplier + k,
tflite/kernels/internal/reference/depthwiseconv_float.h) exactly 0 for any finite alpha, and the
region goes on until a CONV_2D / FULLY_CONNECTED gives those channels zero weights too.
Every reader of the input (and of the tensors that widen with it) must absorb the extra
channels; otherwise the rewrite refuses rather than slicing them off again.

Not updated: TFLite metadata (TFLITE_METADATA: the input's ImageProperties and its per-channel
NormalizationOptions still describe 3 channels) is kept byte for byte, as is min_runtime_version
(no op changes version); signature defs point at the same, now 4-channel, input tensor.

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
DEPTHWISE = B["DEPTHWISE_CONV_2D"]


@dataclass
class Region(Match):
    """The input, the tensors that widen with it (id of the tensor -> channels added), and the
    ops that change."""

    source: Tensor | None = None
    widened: dict[int, int] = field(default_factory=dict)
    elementwise: list[Op] = field(default_factory=list)
    depthwise: list[Op] = field(default_factory=list)
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
        stack = [(x, 1)]
        while stack:
            t, extra = stack.pop()
            region.widened[id(t)] = extra
            if t is not x and t.graph.is_graph_output(t):
                return f"{t.name!r} is a model output"
            for reader in t.consumers:
                why = _admit(reader, t, region)
                if why:
                    return why
                out = reader.outputs[0]
                if reader in (*region.elementwise, *region.depthwise) and id(out) not in region.widened:
                    stack.append((out, extra * _multiplier(reader)))
        region.ops = [*region.elementwise, *region.depthwise, *region.absorbers]
        return region

    def rewrite(self, match: Region, ctx: RewriteContext) -> None:
        graph = match.source.graph
        extra = match.widened
        for op in match.elementwise:
            if op.builtin in FILL:
                i = next(i for i, t in enumerate(op.inputs) if t is not None and t.is_constant)
                op.set_input(i, _widen_constant(op, op.inputs[i], FILL[op.builtin], extra[id(op.outputs[0])]))
        for op in match.depthwise:  # weights [1, H, W, C*m] and bias [C*m]: zeros for the new outputs
            for i in (1, 2):
                if op.input(i) is not None:
                    op.set_input(i, _widen_constant(op, op.input(i), 0.0, extra[id(op.outputs[0])]))
        for op in match.absorbers:  # weights [..., C]: zeros for the new input channels
            op.set_input(1, _widen_constant(op, op.input(1), 0.0, extra[id(op.input(0))]))
        for t in graph.tensors:
            if id(t) in extra:
                n = t.shape[-1] + extra[id(t)]
                build.reshape_tensor(t, t.shape[:-1] + (n,), t.signature[:-1] + (n,))


def _admit(reader: Op, t: Tensor, region: Region) -> str | None:
    """Add `reader` to the region, or say why it cannot take a 4th channel of `t`."""
    if reader in region.elementwise or reader in region.absorbers:
        return None
    if reader.builtin in ABSORB or reader.builtin == DEPTHWISE:
        why = _constant_weights(reader, t)
        if why:
            return why
        (region.absorbers if reader.builtin in ABSORB else region.depthwise).append(reader)
        return None
    if reader.builtin in BOUNDED:
        region.elementwise.append(reader)
        return None
    if reader.builtin in FILL:
        c = other_input(reader, t)
        if c is None or not is_channel_constant(c, t.shape[-1]):
            return f"{reader.name} combines the input with a non per-channel operand"
        if reader.builtin == B["DIV"] and reader.input(0) is not t:
            return "DIV divides by the input (the alpha channel could be 0)"
        region.elementwise.append(reader)
        return None
    return f"{reader.name} cannot absorb a 4th channel (it would need a slice)"


def _constant_weights(reader: Op, t: Tensor) -> str | None:
    """Why a convolution or fully connected layer cannot take zero weights for new channels of
    `t`, None when it can: `t` is its data input and the weights (and bias) are constants."""
    w, bias = reader.input(1), reader.input(2)
    if reader.input(0) is not t or w is None or not w.is_constant or w.data() is None:
        return f"{reader.name} reads the input through runtime weights"
    if bias is not None and bias.data() is None:
        return f"{reader.name} has a runtime bias"
    channels = t.shape[-1] * _multiplier(reader) if reader.builtin == DEPTHWISE else t.shape[-1]
    if w.shape[-1] != channels:
        return f"{reader.name} does not contract over the {t.shape[-1]} channels"
    return None


def _multiplier(op: Op) -> int:
    """How many output channels each input channel feeds (depthwise: the multiplier)."""
    if op.builtin != DEPTHWISE:
        return 1
    return op.input(1).shape[-1] // op.input(0).shape[-1]


def _widen_constant(op: Op, c: Tensor, fill: float, extra: int) -> Tensor:
    """A per-channel constant with `extra` more channels of `fill` (a scalar or size-1 one
    stays)."""
    v = c.data()
    if v.ndim == 0 or v.shape[-1] == 1:
        return c
    tail = np.full(v.shape[:-1] + (extra,), fill, dtype=v.dtype)
    return build.constant(op.graph, f"{c.name}/rgba", np.concatenate([v, tail], axis=-1))
