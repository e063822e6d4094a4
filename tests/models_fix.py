"""Models for `gpucompat fix`: what the converter leaves behind that the GPU delegate cannot take.

SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND chains come from dilated convolutions exported with a
dynamic batch (the converter's own folding needs a static batch), and from raw
tf.space_to_batch_nd / tf.batch_to_space chains for the shapes TensorFlow never emits itself.
Every model takes a dynamic batch so the converter keeps the chain. The two chains the fix, verify
and API tests share (stb_same_bias_relu, stb_stride2) are written with the IR builder
(tests/irbuild.py) as the converter writes them, so those tests run without TensorFlow.
"""

import numpy as np

from irbuild import IRModel, conv_options, options
from modelgen import builder, const, convert_fn, rng, tf


def _dyn(h: int, w: int | None, c: int):
    t = tf()
    return [([None, h, c] if w is None else [None, h, w, c], t.float32)]


def _ir_chain(h: int, w: np.ndarray, paddings, crops, *, stride: int = 1, bias: np.ndarray | None = None,
              scope: str = "") -> bytes:
    """SPACE_TO_BATCH_ND (block 2) -> 3x3 VALID CONV_2D of HWIO weights `w` -> BATCH_TO_SPACE_ND
    [-> ADD of `bias` with a fused RELU] on a [-1, h, h, C] input, as the converter writes the chain:
    one block-shape constant for both ends (and one for equal paddings and crops), the space-to-batch
    output named as TensorFlow names it (under `scope`; fix's messages quote it), and the
    min_runtime_version it records for these ops."""
    m = IRModel(signature="serving_default", metadata={"min_runtime_version": b"1.6.0"})
    cin, cout = w.shape[2], w.shape[3]

    def act(name: str, inputs: list, size: int, channels: int, **kw) -> int:
        return m.op(name, inputs, [1, size, size, channels], signature=[-1, size, size, channels], **kw)

    x = m.input("x", [1, h, h, cin], signature=[-1, h, h, cin])
    block, pads = m.const("block_shape", np.array([2, 2], np.int32)), m.const("paddings", np.array(paddings, np.int32))
    cut = pads if np.array_equal(paddings, crops) else m.const("crops", np.array(crops, np.int32))
    size = (h + sum(paddings[0])) // 2
    y = act("SPACE_TO_BATCH_ND", [x, block, pads], size, cin, output_name=f"{scope}SpaceToBatchND")
    size = (size - 3) // stride + 1
    y = act("CONV_2D", [y, m.const("conv/w", w.transpose(3, 0, 1, 2)), m.const("conv/b", np.zeros(cout, np.float32))],
            size, cout, options=conv_options("VALID", stride=stride))
    size = 2 * size - sum(crops[0])
    y = act("BATCH_TO_SPACE_ND", [y, block, cut], size, cout)
    if bias is not None:
        y = act("ADD", [y, m.const("bias", bias)], size, cout, options=options("Add", activation="RELU"))
    m.output(y)
    return m.bytes()


@builder("stb_same_bias_relu")
def stb_same_bias_relu() -> bytes:
    """atrous_conv2d SAME, rate 2, 13x13 (not divisible: paddings [2, 3], crops [0, 1]), then bias
    and RELU."""
    return _ir_chain(13, const([3, 3, 4, 8]), [[2, 3], [2, 3]], [[0, 1], [0, 1]], bias=const([8], seed=2),
                     scope="convolution/")


@builder("stb_valid_odd")
def stb_valid_odd() -> bytes:
    """atrous_conv2d VALID, rate 2, 13x13: paddings [0, 1] and crops [0, 1] cancel."""
    t = tf()
    w = const([3, 3, 4, 4], seed=3)
    return convert_fn(lambda x: t.nn.atrous_conv2d(x, w, 2, "VALID"), _dyn(13, 13, 4))


@builder("stb_depthwise")
def stb_depthwise() -> bytes:
    """depthwise_conv2d SAME with rate 3 on 10x10: paddings [3, 5], crops [0, 2]."""
    t = tf()
    w = const([3, 3, 4, 1], seed=4)
    return convert_fn(lambda x: t.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[3, 3]),
                      _dyn(10, 10, 4))


@builder("stb_1d")
def stb_1d() -> bytes:
    """A 1-D dilated convolution: STB -> EXPAND_DIMS -> CONV_2D -> squeezing RESHAPE -> BTS."""
    t = tf()
    w = const([3, 4, 8], seed=5)
    return convert_fn(lambda x: t.nn.convolution(x, w, padding="SAME", dilations=[2]), _dyn(13, None, 4))


def _raw_chain(h: int, paddings, crops, *, stride: int = 1, pad=None, extra_reader: bool = False):
    """tf.space_to_batch_nd -> conv2d (VALID, 3x3) -> [tf.pad] -> batch_to_space, block 2."""
    t = tf()
    w = const([3, 3, 4, 4], seed=6)

    def f(x):
        s = t.space_to_batch_nd(x, [2, 2], paddings)
        y = t.nn.conv2d(s, w, stride, "VALID")
        if pad is not None:
            y = t.pad(y, pad)
        y = t.batch_to_space(y, [2, 2], crops)
        return (y, s * 2.0) if extra_reader else y

    return convert_fn(f, _dyn(h, h, 4))


@builder("stb_explicit_pad")
def stb_explicit_pad() -> bytes:
    """Paddings [[3, 1], [2, 2]], no crops: the dilated conv needs padding (3, 1) x (2, 2)."""
    return _raw_chain(12, [[3, 1], [2, 2]], [[0, 0], [0, 0]])


@builder("stb_pad_cropped")
def stb_pad_cropped() -> bytes:
    """A PAD of one row at the top of every sub-image, removed again by crops [2, 0]."""
    return _raw_chain(12, [[2, 2], [2, 2]], [[2, 0], [0, 0]], pad=[[0, 0], [1, 0], [0, 0], [0, 0]])


@builder("stb_pad_kept")
def stb_pad_kept() -> bytes:
    """Refused: the PAD's zero rows survive (no crops), no conv padding can produce them."""
    return _raw_chain(12, [[2, 2], [2, 2]], [[0, 0], [0, 0]], pad=[[0, 0], [1, 0], [0, 0], [0, 0]])


@builder("stb_stride2")
def stb_stride2() -> bytes:
    """Refused: the inner conv has stride 2."""
    return _ir_chain(12, const([3, 3, 4, 4], seed=6), [[0, 0], [0, 0]], [[0, 0], [0, 0]], stride=2)


@builder("stb_two_readers")
def stb_two_readers() -> bytes:
    """Refused: the space-to-batch output is also a model output's input."""
    return _raw_chain(12, [[2, 2], [2, 2]], [[0, 0], [0, 0]], extra_reader=True)


def rewritten(raw: bytes, *rewrites, profile: str = "gpu-current"):
    """(model, trace): `raw` loaded and rewritten to a fixpoint with `rewrites` under `profile`."""
    from gpucompat import ir
    from gpucompat.rewrites.engine import RewriteContext, apply
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    model = ir.from_bytes(raw)
    return model, apply(model, list(rewrites), RewriteContext(registry.get(profile), Options()))


@builder("rgb_normalised")
def rgb_normalised() -> bytes:
    """Per-channel (x - mean) / std, then a conv and a bias: the usual image pre-processing."""
    t = tf()
    w = const([3, 3, 3, 8], seed=7)
    mean, std = t.constant([0.5, 0.4, 0.3]), t.constant([0.2, 0.25, 0.3])
    return convert_fn(lambda x: t.nn.relu(t.nn.conv2d((x - mean) / std, w, 1, "SAME")), [([1, 8, 8, 3], t.float32)])


@builder("rgb_two_convs")
def rgb_two_convs() -> bytes:
    """The input read directly by two convolutions."""
    t = tf()
    w1, w2 = const([3, 3, 3, 4], seed=8), const([1, 1, 3, 4], seed=9)
    return convert_fn(lambda x: t.nn.conv2d(x, w1, 1, "SAME") + t.nn.conv2d(x, w2, 1, "SAME"),
                      [([1, 8, 8, 3], t.float32)])


@builder("rgb_pool")
def rgb_pool() -> bytes:
    """Refused: the input is pooled and concatenated, which cannot ignore a 4th channel."""
    t = tf()
    w = const([3, 3, 3, 4], seed=10)
    return convert_fn(lambda x: t.concat([t.nn.conv2d(x, w, 1, "SAME"), t.nn.avg_pool2d(x, 1, 1, "SAME")], -1),
                      [([1, 8, 8, 3], t.float32)])


@builder("fp16_weights")
def fp16_weights() -> bytes:
    """fp16 weights: constant FLOAT16 -> DEQUANTIZE -> CONV_2D."""
    t = tf()
    w = const([3, 3, 4, 8], seed=11)
    return convert_fn(lambda x: t.nn.conv2d(x, w, 1, "SAME"), [([1, 8, 8, 4], t.float32)], fp16=True)


@builder("sparse_weights")
def sparse_weights() -> bytes:
    """A 90 %-zero fully connected weight stored sparse: DENSIFY -> FULLY_CONNECTED."""
    t = tf()
    w = const([64, 64], seed=12)
    w[rng(13).random(w.shape) < 0.9] = 0.0

    def f(x):
        return t.nn.relu(t.matmul(x, w))

    return convert_fn(f, [([1, 64], t.float32)], sparse=True)


# Substitutions: each model puts the op the profile rejects between two GPU ops, so the fix
# turns two partitions (one delegated) into one.

def _conv_around(body, shape=(1, 6, 6, 4), seed: int = 20):
    """x -> CONV_2D 1x1 -> body -> CONV_2D 1x1 (same channel count in and out of `body`)."""
    t = tf()
    c = shape[-1]
    w1, w2 = const([1, 1, c, c], seed=seed), const([1, 1, c, c], seed=seed + 1)
    return convert_fn(lambda x: t.nn.conv2d(body(t.nn.conv2d(x, w1, 1, "SAME")), w2, 1, "SAME"),
                      [(list(shape), t.float32)])


@builder("sub_l2norm")
def sub_l2norm() -> bytes:
    """conv -> L2_NORMALIZATION over channels -> conv."""
    t = tf()
    return _conv_around(lambda y: t.nn.l2_normalize(y, axis=-1), shape=(1, 6, 6, 8))


@builder("sub_l2norm_zeros")
def sub_l2norm_zeros() -> bytes:
    """L2_NORMALIZATION of RELU(x - 1): about a quarter of the channel vectors are all zero, where
    only the kernel's epsilon keeps 0 / 0 from being NaN."""
    t = tf()
    return convert_fn(lambda x: t.nn.l2_normalize(t.nn.relu(x - 1.0), axis=-1), [([1, 6, 6, 8], t.float32)])


@builder("sub_mirror_symmetric")
def sub_mirror_symmetric() -> bytes:
    """conv -> MIRROR_PAD SYMMETRIC, 2 rows on top, 1 below, 1 column each side -> conv."""
    t = tf()
    return _conv_around(lambda y: t.raw_ops.MirrorPad(input=y, paddings=[[0, 0], [2, 1], [1, 1], [0, 0]],
                                                      mode="SYMMETRIC"))


@builder("sub_mirror_reflect")
def sub_mirror_reflect() -> bytes:
    """conv -> MIRROR_PAD REFLECT (1, 2) on H and (2, 0) on W -> conv (for profiles without it)."""
    t = tf()
    return _conv_around(lambda y: t.raw_ops.MirrorPad(input=y, paddings=[[0, 0], [1, 2], [2, 0], [0, 0]],
                                                      mode="REFLECT"))


@builder("sub_mirror_2d")
def sub_mirror_2d() -> bytes:
    """Refused: a SYMMETRIC pad of a 2-D tensor (the delegate's SLICE takes ranks 3 and 4 only)."""
    t = tf()
    return convert_fn(lambda x: t.raw_ops.MirrorPad(input=t.tanh(x), paddings=[[1, 1], [1, 1]], mode="SYMMETRIC"),
                      [([4, 6], t.float32)])


@builder("sub_gather")
def sub_gather() -> bytes:
    """Constant-index selections: GATHER of rows 1..3 (INT32), of channels 0, 2, 4 (INT64
    indices, which the delegate refuses), GATHER_ND of x[0, 1:3], and GATHER of channels 2, 0
    (not a slice: refused)."""
    t = tf()

    def f(x):
        y = t.tanh(x)
        return (t.gather(y, [1, 2, 3], axis=1) * 2.0,
                t.gather(y, t.constant([0, 2, 4], t.int64), axis=3) * 2.0,
                t.gather_nd(y, [[0, 1], [0, 2]]) * 2.0,
                t.gather(y, [2, 0], axis=3) * 2.0)

    return convert_fn(f, [([1, 5, 5, 6], t.float32)])


@builder("sub_split")
def sub_split() -> bytes:
    """conv -> SPLIT in two and SPLIT_V [3, 5] over channels -> recombined by ADD / CONCATENATION."""
    t = tf()

    def body(y):
        a, b = t.split(y, 2, axis=3)
        c, d = t.split(y, [3, 5], axis=3)
        return t.concat([a + b, c, d * 2.0], axis=3)[..., :8]

    return _conv_around(body, shape=(1, 4, 4, 8))


@builder("sub_broadcast_concat")
def sub_broadcast_concat() -> bytes:
    """BROADCAST_TO [8, 1, 4] -> [1, 8, 8, 4] read by CONCATENATION (the converter keeps it)."""
    t = tf()
    return convert_fn(lambda x, z: t.concat([t.broadcast_to(t.tanh(x), [1, 8, 8, 4]), t.tanh(z)], -1),
                      [([8, 1, 4], t.float32), ([1, 8, 8, 4], t.float32)])


@builder("sub_broadcast_add")
def sub_broadcast_add() -> bytes:
    """TANH(x [8, 8, 1]) -> BROADCAST_TO [1, 8, 8, 4] -> ADD with TANH(z [1, 8, 8, 4]).

    The converter drops a BROADCAST_TO whose reader broadcasts anyway, but other exporters keep
    it: it is put back into the flatbuffer here."""
    import numpy as np

    from gpucompat import ir
    from gpucompat.ir import build

    t = tf()
    model = ir.from_bytes(convert_fn(lambda x, z: t.tanh(x) + t.tanh(z), [([8, 8, 1], t.float32),
                                                                        ([1, 8, 8, 4], t.float32)]))
    g = model.graphs[0]
    add = next(op for op in g.ops if op.name == "ADD")
    small = next(t for t in add.inputs if t.shape == (8, 8, 1))
    wide = build.tensor(g, "broadcast", (1, 8, 8, 4), small.dtype)
    target = build.constant(g, "broadcast/shape", np.array([1, 8, 8, 4], dtype=np.int32))
    add.inputs = [wide if t is small else t for t in add.inputs]
    g.insert_op(g.op_index(add), build.operator(g, "BROADCAST_TO", [small, target], [wide], version=2))
    return ir.to_bytes(model)


@builder("rgb_depthwise")
def rgb_depthwise() -> bytes:
    """MobileNet-like stem on an RGB input: (x - mean) * scale -> depthwise 3x3 (multiplier 2) with
    bias and RELU6 -> pointwise conv: the depthwise carries the alpha channel to the pointwise."""
    t = tf()
    dw, pw = const([3, 3, 3, 2], seed=14), const([1, 1, 6, 8], seed=15)
    bias = const([6], seed=16)
    mean, scale = t.constant([0.5, 0.4, 0.3]), t.constant([2.0, 1.5, 1.0])

    def f(x):
        y = t.nn.depthwise_conv2d((x - mean) * scale, dw, [1, 1, 1, 1], "SAME") + bias
        return t.nn.conv2d(t.nn.relu6(y), pw, 1, "SAME")

    return convert_fn(f, [([1, 8, 8, 3], t.float32)])


@builder("rgb_depthwise_out")
def rgb_depthwise_out() -> bytes:
    """Refused: a depthwise conv of the input is the model output (its alpha outputs would show)."""
    t = tf()
    dw = const([3, 3, 3, 1], seed=17)
    return convert_fn(lambda x: t.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME"), [([1, 8, 8, 3], t.float32)])


@builder("sub_gather_nd_positions")
def sub_gather_nd_positions() -> bytes:
    """A rotary table [16, 1, 1, 8] read at runtime positions [6, 1] through GATHER_ND (as
    litert-torch exports RoPE), then scaled."""
    t = tf()
    table = const([16, 1, 1, 8], seed=12)
    return convert_fn(lambda pos, x: t.gather_nd(table, pos) * x, [([6, 1], t.int32), ([6, 1, 1, 8], t.float32)])
