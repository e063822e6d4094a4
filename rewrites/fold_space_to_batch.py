"""fold-space-to-batch: SPACE_TO_BATCH_ND -> conv -> BATCH_TO_SPACE_ND  ==>  one dilated conv.

    STB(x) -> [EXPAND_DIMS] -> CONV_2D | DEPTHWISE_CONV_2D -> [SQUEEZE] -> [PAD]
           -> [per-channel ops] -> BTS        ==>   [PAD(zeros)] -> conv(dilation = block) -> ...

TensorFlow emulates a dilated convolution by moving space into the batch (SPACE_TO_BATCH_ND),
running an undilated convolution and moving it back (BATCH_TO_SPACE_ND). The converter folds the
pair only when the batch is static (tflite/converter/transforms/dilated_conv.h
ConvertTFDilatedConvOp), so a model exported with a dynamic batch keeps both, and the GPU delegate
has no parser for either (model_builder.cc NewOperationParser): the graph is cut in three.

The arithmetic, per spatial axis with block b, STB paddings (pt, pb), BTS crops (ct, cb), kernel
size k and the inner conv's own padding (it, ib) (0 for VALID; (k-1)//2 and the rest for SAME),
and an optional zero PAD (et, eb) between the conv and BTS (worked out from
tensorflow/python/ops/array_ops.py required_space_to_batch_paddings and checked in numpy):
the chain equals a conv with dilation b over the original input padded by
    T = pt - (ct - et*b) + it*b,   B = pb - (cb - eb*b) + ib*b,
exactly when the crops remove the PAD's rows (ct >= et*b, cb >= eb*b) and T, B >= 0. TFLite's
VALID is T = B = 0; its SAME (stride 1) is T = ((k-1)*b)//2, B = (k-1)*b - T
(tflite/kernels/padding.h ComputePaddingWithOffsetChecked); anything else gets an explicit PAD.
Per-channel ops between the conv and BTS commute with BTS, which only permutes and crops rows.

Safety: equivalent (the dilated conv sums the same products, possibly in another order).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, Tensor, build, dtypes
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import B, int_values, is_channel_constant, of_type, other_input, sole_reader

CONV_OPTIONS = {B["CONV_2D"]: fb.Conv2DOptionsT, B["DEPTHWISE_CONV_2D"]: fb.DepthwiseConv2DOptionsT}
CONVS = set(CONV_OPTIONS)
# Elementwise ops with one runtime operand from the chain and, for binary ones, a per-channel
# constant: they commute with BATCH_TO_SPACE_ND.
UNARY = {B[n] for n in ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "TANH", "LOGISTIC", "LEAKY_RELU",
                        "HARD_SWISH", "ELU", "ABS", "NEG", "SQUARE", "GELU") if n in B}
BINARY = {B[n] for n in ("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "PRELU")}
FLOATS = {dtypes.FLOAT32, dtypes.FLOAT16}


@dataclass
class Axis:
    """One spatial axis of the conv: block, STB paddings, BTS crops, the PAD's rows, kernel size."""

    block: int = 1
    pads: tuple[int, int] = (0, 0)
    crops: tuple[int, int] = (0, 0)
    extra: tuple[int, int] = (0, 0)
    kernel: int = 1
    inner: tuple[int, int] = (0, 0)

    def padding(self) -> tuple[int, int]:
        """(T, B): explicit zero padding of the original input for the dilated conv."""
        b = self.block
        top = self.pads[0] - (self.crops[0] - self.extra[0] * b) + self.inner[0] * b
        bottom = self.pads[1] - (self.crops[1] - self.extra[1] * b) + self.inner[1] * b
        return top, bottom

    def same(self) -> tuple[int, int]:
        """TFLite's SAME padding for this kernel at dilation `block`, stride 1."""
        total = (self.kernel - 1) * self.block
        return total // 2, total - total // 2


@dataclass
class Chain(Match):
    """A matched STB ... BTS chain."""

    stb: Op | None = None
    expand: Op | None = None
    conv: Op | None = None
    squeeze: Op | None = None
    pad: Op | None = None
    middle: list[Op] = field(default_factory=list)  # ops between the conv and BTS (incl. squeeze/pad)
    bts: Op | None = None
    axes: dict[int, Axis] = field(default_factory=dict)  # conv axis (1 = H, 2 = W) -> Axis


class FoldSpaceToBatch(Rewrite):
    name = "fold-space-to-batch"
    safety = "equivalent"
    priority = 50
    summary = "SPACE_TO_BATCH_ND -> conv -> BATCH_TO_SPACE_ND becomes one dilated convolution"

    def candidates(self, graph, ctx):
        return of_type(graph, "SPACE_TO_BATCH_ND")

    def check(self, op: Op, ctx: RewriteContext) -> Chain | str:
        chain = Chain(op, stb=op)
        x = op.input(0)
        block, paddings = int_values(op.input(1)), int_values(op.input(2))
        if block is None or paddings is None:
            return "block shape or paddings not constant"
        if x is None or x.dtype not in FLOATS:
            return "input is not float"
        m = len(block)
        if x.rank != m + 2 or m not in (1, 2):
            return f"space-to-batch over {m} axes of a rank-{x.rank} tensor"
        if sum(1 for d in x.signature if d < 0) > 1:
            return "input has more than one dynamic dimension"
        t = op.outputs[0]
        nxt = sole_reader(t)
        if nxt is not None and _expand_axis(nxt) is not None:
            chain.expand, t = nxt, nxt.outputs[0]
            nxt = sole_reader(t)
        if nxt is None:
            return "space-to-batch output has more than one reader"
        if nxt.builtin not in CONVS or nxt.input(0) is not t:
            return f"space-to-batch feeds {nxt.name}, not a convolution's input"
        why = _conv_problem(nxt)
        if why:
            return why
        chain.conv = nxt
        conv_axis = _axis_map(m, _expand_axis(chain.expand) if chain.expand else None)
        if conv_axis is None:
            return "EXPAND_DIMS inserts the batch or channel axis"
        why = self._walk_to_bts(chain, m)
        if why:
            return why
        crops = int_values(chain.bts.input(2))
        bts_block = int_values(chain.bts.input(1))
        if crops is None or bts_block is None:
            return "crops not constant"
        if not np.array_equal(bts_block, block):
            return "space-to-batch and batch-to-space blocks differ"
        weights = chain.conv.input(1).shape
        same = chain.conv.options.padding == fb.Padding.SAME
        for i in range(m):
            k = weights[conv_axis[i]]
            chain.axes[conv_axis[i]] = Axis(int(block[i]), tuple(paddings[i]), tuple(crops[i]), kernel=k)
        for a in (1, 2):
            ax = chain.axes.setdefault(a, Axis(kernel=weights[a]))
            if same:
                ax.inner = ((ax.kernel - 1) // 2, ax.kernel - 1 - (ax.kernel - 1) // 2)
        why = self._read_pad(chain, m, conv_axis)
        return why or _padding_problem(chain) or _size_problem(chain) or chain

    def _walk_to_bts(self, chain: Chain, m: int) -> str | None:
        """Follow single-reader ops from the conv to BATCH_TO_SPACE_ND, recording them."""
        t = chain.conv.outputs[0]
        channels = t.shape[-1]
        while True:
            op = sole_reader(t)
            if op is None:
                return f"{t.producer.name} output has more than one reader"
            if op.builtin == B["BATCH_TO_SPACE_ND"]:
                if (chain.expand is not None) != (chain.squeeze is not None):
                    return "EXPAND_DIMS without a matching SQUEEZE"
                chain.bts = op
                chain.ops = [chain.stb, *([chain.expand] if chain.expand else []), chain.conv, *chain.middle, op]
                return None
            if chain.expand is not None and chain.squeeze is None and _squeeze_axis(op) is not None:
                if _squeeze_axis(op) != _expand_axis(chain.expand):
                    return "SQUEEZE removes another axis than EXPAND_DIMS added"
                chain.squeeze = op
            elif op.builtin in (B["PAD"], B["PADV2"]) and chain.pad is None:
                if op.builtin == B["PADV2"] and not _is_zero(op.input(2)):
                    return "PADV2 pads with a nonzero value"
                chain.pad = op
            elif op.builtin in UNARY:
                pass
            elif op.builtin in BINARY:
                c = other_input(op, t)
                if c is None or not is_channel_constant(c, channels):
                    return f"{op.name} between the conv and batch-to-space has a non per-channel operand"
            else:
                return f"{op.name} between the conv and batch-to-space does not commute with it"
            chain.middle.append(op)
            t = op.outputs[0]

    def _read_pad(self, chain: Chain, m: int, conv_axis: list[int]) -> str | None:
        """Record the PAD's per-axis rows; refuse a PAD on an axis the blocks do not cover."""
        if chain.pad is None:
            return None
        amounts = int_values(chain.pad.input(1))
        if amounts is None:
            return "PAD amounts not constant"
        rank = chain.pad.input(0).rank
        positions = conv_axis if rank == 4 else [1 + i for i in range(m)]
        for d in range(rank):
            if d not in positions and amounts[d].any():
                return "PAD pads an axis the blocks do not cover"
        for i, pos in enumerate(positions):
            ax = chain.axes[conv_axis[i]]
            ax.extra = (int(amounts[pos][0]), int(amounts[pos][1]))
            if ax.crops[0] < ax.extra[0] * ax.block or ax.crops[1] < ax.extra[1] * ax.block:
                return "a nonzero PAD adds rows the crops do not remove"
        return None

    def rewrite(self, match: Chain, ctx: RewriteContext) -> None:
        graph = match.stb.graph
        x, conv, bts = match.stb.input(0), match.conv, match.bts
        out = bts.outputs[0]
        pads = {a: ax.padding() for a, ax in match.axes.items()}
        same = all(pads[a] == match.axes[a].same() for a in (1, 2))
        explicit = not same and any(pads[a] != (0, 0) for a in (1, 2))
        # The conv's new input: x, through EXPAND_DIMS for 1-D, through a zero PAD if needed.
        src = x
        if match.expand is not None:
            _reshape_like(match.expand, _with_unit(x, _expand_axis(match.expand)))
            match.expand.set_input(0, x)
            src = match.expand.outputs[0]
        if explicit:
            src = _insert_pad(graph, src, conv, pads)
        conv.set_input(0, src)
        opts = conv.options
        opts.padding = fb.Padding.SAME if same else fb.Padding.VALID
        opts.dilationHFactor, opts.dilationWFactor = match.axes[1].block, match.axes[2].block
        if conv.builtin == B["DEPTHWISE_CONV_2D"] and conv.version < 2:
            conv.code = dataclasses.replace(conv.code, version=2)  # dilation needs version 2 (op_version.cc)
        # Everything after the conv now has the final spatial shape.
        squeeze_at = _expand_axis(match.expand) if match.expand is not None else None
        four_d = _with_unit(out, squeeze_at) if squeeze_at is not None else (out.shape, out.signature)
        _set_shape(conv.outputs[0], four_d)
        for op in match.middle:
            if op is match.pad:
                graph.replace_uses(op.outputs[0], op.inputs[0])
                continue
            if op is match.squeeze:
                _reshape_like(op, (out.shape, out.signature))
            else:
                _set_shape(op.outputs[0], four_d if op.outputs[0].rank == 4 else (out.shape, out.signature))
        last = bts.inputs[0].producer
        graph.remove_op(bts)
        last.set_output(0, out)


def _conv_problem(conv: Op) -> str | None:
    o = conv.options
    expected = CONV_OPTIONS[conv.builtin]
    if not isinstance(o, expected):  # a damaged model: options absent or of another type
        return f"conv has no {expected.__name__.removesuffix('T')}"
    if o.strideH != 1 or o.strideW != 1:
        return f"conv stride {max(o.strideH, o.strideW)}"
    if o.dilationHFactor != 1 or o.dilationWFactor != 1:
        return "conv is already dilated"
    if conv.input(1) is None or conv.input(1).rank != 4:
        return "conv weights are not 4-D"
    if not conv.outputs or conv.outputs[0].rank != 4:  # a damaged model: the runtime would refuse it too
        return "conv output is not 4-D"
    return None


def _padding_problem(chain: Chain) -> str | None:
    for ax in chain.axes.values():
        top, bottom = ax.padding()
        if top < 0 or bottom < 0:
            return "crops exceed the paddings (the dilated conv would need an input crop)"
    return None


def _size_problem(chain: Chain) -> str | None:
    """Where sizes are static, the dilated conv must produce exactly the batch-to-space shape."""
    x, out = chain.stb.input(0), chain.bts.outputs[0]
    if chain.expand is not None:
        axis = _expand_axis(chain.expand)
        x_sig, out_sig = _with_unit(x, axis)[1], _with_unit(out, axis)[1]
    else:
        x_sig, out_sig = x.signature, out.signature
    for a, ax in chain.axes.items():
        top, bottom = ax.padding()
        if x_sig[a] >= 0 and out_sig[a] >= 0 and x_sig[a] + top + bottom - (ax.kernel - 1) * ax.block != out_sig[a]:
            return f"the dilated conv would give {x_sig[a] + top + bottom - (ax.kernel - 1) * ax.block} " \
                   f"rows on axis {a}, batch-to-space gives {out_sig[a]}"
    return None


def _expand_axis(op: Op | None) -> int | None:
    """The axis an EXPAND_DIMS (or a RESHAPE that only inserts a 1) adds, else None."""
    if op is None or op.builtin not in (B["EXPAND_DIMS"], B["RESHAPE"]):
        return None
    src, dst = op.input(0), op.outputs[0]
    if dst.rank != src.rank + 1:
        return None
    if op.builtin == B["EXPAND_DIMS"]:
        v = int_values(op.input(1))
        return None if v is None or v.size != 1 else int(v.reshape(-1)[0]) % dst.rank
    return _unit_axis(dst.signature, src.signature)


def _squeeze_axis(op: Op) -> int | None:
    """The axis a SQUEEZE (or a RESHAPE that only drops a 1) removes, else None."""
    src, dst = op.input(0), op.outputs[0]
    if op.builtin == B["SQUEEZE"]:
        dims = list(op.options.squeezeDims) if op.options is not None and op.options.squeezeDims is not None else []
        return dims[0] % src.rank if len(dims) == 1 else None
    if op.builtin == B["RESHAPE"] and dst.rank + 1 == src.rank:
        return _unit_axis(src.signature, dst.signature)
    return None


def _unit_axis(longer: tuple[int, ...], shorter: tuple[int, ...]) -> int | None:
    """The one position where `longer` has an extra 1 compared with `shorter`."""
    for i, d in enumerate(longer):
        if d == 1 and longer[:i] + longer[i + 1:] == shorter:
            return i
    return None


def _axis_map(m: int, expand_axis: int | None) -> list[int] | None:
    """Conv axis (1 = H, 2 = W) of each blocked axis of the space-to-batch input."""
    if expand_axis is None:
        return [1 + i for i in range(m)]
    if expand_axis not in (1, 2):
        return None
    return [1 + i + (1 if expand_axis <= 1 + i else 0) for i in range(m)]


def _is_zero(t: Tensor | None) -> bool:
    v = t.data() if t is not None else None
    return v is not None and not np.any(v)


def _with_unit(t: Tensor, axis: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, signature) of `t` with a 1 inserted at `axis`."""
    return t.shape[:axis] + (1,) + t.shape[axis:], t.signature[:axis] + (1,) + t.signature[axis:]


def _set_shape(t: Tensor, shape_sig: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    build.reshape_tensor(t, *shape_sig)


def _reshape_like(op: Op, shape_sig: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    """Give a reshape-like op's output a new shape, with a new shape operand for RESHAPE."""
    _set_shape(op.outputs[0], shape_sig)
    if op.builtin == B["RESHAPE"]:
        sig = np.asarray(shape_sig[1], dtype=np.int32)
        if op.input(1) is not None:
            op.set_input(1, build.constant(op.graph, f"{op.outputs[0].name}/shape", sig))
        if op.options is not None and getattr(op.options, "newShape", None) is not None:
            op.options.newShape = sig


def _insert_pad(graph, src: Tensor, conv: Op, pads: dict[int, tuple[int, int]]) -> Tensor:
    """Insert PAD(src) with zero rows (T, B) per spatial axis before `conv`; return its output."""
    amounts = np.array([[0, 0], list(pads[1]), list(pads[2]), [0, 0]], dtype=np.int32)
    shape = [d + int(amounts[i].sum()) if i in (1, 2) else d for i, d in enumerate(src.shape)]
    sig = [d + int(amounts[i].sum()) if i in (1, 2) and d >= 0 else d for i, d in enumerate(src.signature)]
    padded = build.tensor(graph, f"{src.name}/dilation_pad", shape, src.dtype, sig)
    paddings = build.constant(graph, f"{src.name}/dilation_pad/amounts", amounts)
    graph.insert_op(graph.op_index(conv), build.operator(graph, "PAD", [src, paddings], [padded],
                                                         fb.PadOptionsT()))
    return padded
