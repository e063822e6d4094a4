"""One model per kernel family, each holding many one-op variants side by side (one output per
variant, named by the variant), so a whole parameter grid costs one conversion.

Channel counts cover 1-9 and 16 (every remainder of the 4-channel slices); spatial sizes are odd.
"""

from modelgen import builder, const, convert_fn, tf

CHANNELS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 16)


def _named(outputs: dict):
    """Outputs in a fixed order; the converter names them after the dict keys' order."""
    return [outputs[k] for k in sorted(outputs)]


def _channel_inputs(h: int = 5, w: int = 7):
    t = tf()
    return [([1, h, w, c], t.float32) for c in CHANNELS]


@builder("k_conv")
def k_conv() -> bytes:
    """CONV_2D: 3x3 SAME stride 1 (+RELU), 3x3 VALID stride 2, 2x2 dilation 2 SAME (+RELU6),
    1x1 with 3 outputs, and a grouped conv when the channels split in two."""
    t = tf()

    def f(*xs):
        out = {}
        for i, (x, c) in enumerate(zip(xs, CHANNELS)):
            out[f"c{c:02d}a"] = t.nn.relu(t.nn.conv2d(x, const([3, 3, c, 5], i), 1, "SAME") + const([5], 50 + i))
            out[f"c{c:02d}b"] = t.nn.conv2d(x, const([3, 3, c, 6], 100 + i), 2, "VALID")
            out[f"c{c:02d}c"] = t.nn.relu6(t.nn.conv2d(x, const([2, 2, c, 4], 200 + i), 1, "SAME", dilations=2))
            out[f"c{c:02d}d"] = t.nn.conv2d(x, const([1, 1, c, 3], 300 + i), 1, "SAME")
            if c % 2 == 0 and c >= 4:
                out[f"c{c:02d}g"] = t.nn.conv2d(x, const([3, 3, c // 2, 8], 400 + i), 1, "SAME")
        return _named(out)

    return convert_fn(f, _channel_inputs())


@builder("k_depthwise")
def k_depthwise() -> bytes:
    """DEPTHWISE_CONV_2D: multiplier 1 SAME, multiplier 2 VALID stride 2, dilation 2 (+RELU6)."""
    t = tf()

    def f(*xs):
        out = {}
        for i, (x, c) in enumerate(zip(xs, CHANNELS)):
            depthwise = t.nn.depthwise_conv2d(x, const([3, 3, c, 1], i), [1, 1, 1, 1], "SAME")
            out[f"c{c:02d}a"] = depthwise + const([c], 9 + i)
            out[f"c{c:02d}b"] = t.nn.depthwise_conv2d(x, const([3, 3, c, 2], 50 + i), [1, 2, 2, 1], "VALID")
            out[f"c{c:02d}c"] = t.nn.relu6(t.nn.depthwise_conv2d(x, const([3, 3, c, 1], 90 + i), [1, 1, 1, 1],
                                                                 "SAME", dilations=[2, 2]))
        return _named(out)

    return convert_fn(f, _channel_inputs())


@builder("k_elementwise")
def k_elementwise() -> bytes:
    """One-input ops and two-input ops with every broadcast form (same shape, per-channel and
    scalar constants, a runtime [1,1,W,C] and [1,H,W,1] operand), with fused activations."""
    t = tf()

    def f(x, y, row, col):
        return _named({
            "abs": t.abs(x), "exp": t.exp(x * 0.5), "log": t.math.log(t.abs(x) + 0.1), "neg": -x,
            "rsqrt": t.math.rsqrt(t.abs(x) + 0.5), "sqrt": t.sqrt(t.abs(x)), "square": t.square(x),
            "tanh": t.tanh(x), "sigmoid": t.sigmoid(x), "relu": t.nn.relu(x), "relu6": t.nn.relu6(x * 4.0),
            "elu": t.nn.elu(x), "hswish": x * t.nn.relu6(x + 3.0) / 6.0, "leaky": t.nn.leaky_relu(x, 0.2),
            "sin": t.sin(x), "cos": t.cos(x), "floor": t.floor(x * 3.0),
            "add": x + y, "add_relu": t.nn.relu(x + y), "sub": x - y, "mul": x * y,
            "div": x / (t.abs(y) + 0.5), "max": t.maximum(x, y), "min": t.minimum(x, y),
            "sqdiff": t.math.squared_difference(x, y), "pow": t.pow(t.abs(x) + 0.1, y),
            "add_c": x + const([7], 3), "mul_s": x * 3.0, "sub_row": x - row, "mul_col": x * col,
            "add_row_relu6": t.nn.relu6(x + row),
        })

    return convert_fn(f, [([1, 5, 9, 7], t.float32), ([1, 5, 9, 7], t.float32), ([1, 1, 9, 7], t.float32),
                          ([1, 5, 9, 1], t.float32)])


@builder("k_pool")
def k_pool() -> bytes:
    """AVERAGE / MAX_POOL_2D: 2x2 stride 2 VALID, 3x3 stride 1 SAME, 3x3 stride 2 SAME."""
    t = tf()

    def f(*xs):
        out = {}
        for x, c in zip(xs, CHANNELS):
            for kind, fn in (("avg", t.nn.avg_pool2d), ("max", t.nn.max_pool2d)):
                out[f"c{c:02d}{kind}a"] = fn(x, 2, 2, "VALID")
                out[f"c{c:02d}{kind}b"] = fn(x, 3, 1, "SAME")
                out[f"c{c:02d}{kind}c"] = fn(x, 3, 2, "SAME")
        return _named(out)

    return convert_fn(f, _channel_inputs())


@builder("k_reduce")
def k_reduce() -> bytes:
    """MEAN over H,W (keep dims and not), over channels; SUM, REDUCE_MAX; SOFTMAX."""
    t = tf()

    def f(*xs):
        out = {}
        for x, c in zip(xs, CHANNELS):
            out[f"c{c:02d}mean_hw"] = t.reduce_mean(x, axis=[1, 2])
            out[f"c{c:02d}mean_hwk"] = t.reduce_mean(x, axis=[1, 2], keepdims=True)
            out[f"c{c:02d}mean_c"] = t.reduce_mean(x, axis=[3], keepdims=True)
            out[f"c{c:02d}sum_w"] = t.reduce_sum(x, axis=[2])
            out[f"c{c:02d}max_h"] = t.reduce_max(x, axis=[1], keepdims=True)
            out[f"c{c:02d}softmax"] = t.nn.softmax(x)
        return _named(out)

    return convert_fn(f, _channel_inputs())


@builder("k_movement")
def k_movement() -> bytes:
    """Data movement: concatenation (channels, width), reshape, transpose, pad, mirror pad, slice,
    strided slice, tile, depth-to-space, space-to-depth, gather, split, unpack, pack."""
    t = tf()

    def f(x, y):
        a, b = t.split(x, [2, 4], axis=3)
        return _named({
            "concat_c": t.concat([x, y], axis=3), "concat_w": t.concat([x, x * 2.0], axis=2),
            "reshape": t.reshape(x, [1, 6, 5, 6]), "transpose": t.transpose(x, [0, 2, 1, 3]),
            "pad": t.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]]), "pad_c": t.pad(x, [[0, 0], [0, 0], [0, 0], [1, 2]]),
            "mirror": t.pad(x, [[0, 0], [1, 1], [2, 2], [0, 0]], mode="REFLECT"),
            "slice": t.slice(x, [0, 1, 0, 1], [1, 2, 3, 4]), "strided": x[:, 1:5:2, ::2, 1:],
            "tile": t.tile(x, [1, 2, 1, 2]), "d2s": t.nn.depth_to_space(y, 2),
            "s2d": t.nn.space_to_depth(x[:, :4, :4, :], 2),
            "gather": t.gather(x, [2, 0, 3], axis=3), "split_a": a, "split_b": b + 1.0,
            "unpack": t.unstack(x, axis=1)[2] * 2.0, "pack": t.stack([x[:, 0], x[:, 1]], axis=1),
        })

    return convert_fn(f, [([1, 5, 6, 6], t.float32), ([1, 5, 6, 8], t.float32)])


@builder("k_resize")
def k_resize() -> bytes:
    """RESIZE_BILINEAR / NEAREST up and down, every align_corners / half_pixel_centers case."""
    t = tf()
    resize = t.compat.v1.image

    def f(x):
        out = {}
        for size in ((9, 13), (3, 4)):
            tag = f"{size[0]}x{size[1]}"
            for kind, fn in (("bil", resize.resize_bilinear), ("nn", resize.resize_nearest_neighbor)):
                out[f"{kind}{tag}"] = fn(x, size)
                out[f"{kind}{tag}_ac"] = fn(x, size, align_corners=True)
                out[f"{kind}{tag}_hp"] = fn(x, size, half_pixel_centers=True)
        return _named(out)

    return convert_fn(f, [([1, 5, 7, 6], t.float32)])


@builder("k_dense")
def k_dense() -> bytes:
    """FULLY_CONNECTED on batches of rows (+RELU), TRANSPOSE_CONV SAME / VALID with stride 2."""
    t = tf()

    def f(v, x):
        out = {"fc": t.matmul(v, const([9, 5], 1)) + const([5], 2),
               "fc_relu": t.nn.relu(t.matmul(v, const([9, 16], 3)))}
        for pad in ("SAME", "VALID"):
            h = 10 if pad == "SAME" else 11
            out[f"tconv_{pad}"] = t.nn.conv2d_transpose(x, const([3, 3, 4, 5], 4), [1, h, 2 * 7 + (pad == "VALID"), 4],
                                                        2, pad)
        return _named(out)

    return convert_fn(f, [([3, 9], t.float32), ([1, 5, 7, 5], t.float32)])


@builder("k_quant")
def k_quant() -> bytes:
    """A fully int8-quantized conv + depthwise + add + mean model with float I/O."""
    t = tf()

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, const([3, 3, 3, 8]), 1, "SAME") + const([8], 1))
        z = t.nn.depthwise_conv2d(y, const([3, 3, 8, 1], 2), [1, 1, 1, 1], "SAME")
        return t.reduce_mean(z + y, axis=[1, 2])

    return convert_fn(f, [([1, 9, 9, 3], t.float32)], quantize="int8")


@builder("k_fp16")
def k_fp16() -> bytes:
    """fp16 weights: constant DEQUANTIZE nodes folded at load."""
    t = tf()

    def f(x):
        return t.nn.relu(t.nn.conv2d(x, const([3, 3, 5, 6]), 1, "SAME")) * const([6], 1)

    return convert_fn(f, [([1, 7, 7, 5], t.float32)], fp16=True)


@builder("k_fusion")
def k_fusion() -> bytes:
    """Elementwise chains after a conv: one that fuses whole (tanh, mul by an input, add a constant,
    sigmoid), and the cases that must not: the conv output as a second input, a tensor read twice."""
    t = tf()

    def f(x, y):
        chain = t.sigmoid(t.tanh(t.nn.conv2d(x, const([3, 3, 6, 8], 1), 1, "SAME")) * y + const([8], 2))
        c2 = t.nn.conv2d(x, const([1, 1, 6, 8], 3), 1, "SAME")
        return _named({"chain": chain, "mixed": (y - c2) + c2 * 2.0})

    return convert_fn(f, [([1, 5, 7, 6], t.float32), ([1, 5, 7, 8], t.float32)])


@builder("k_indexed")
def k_indexed() -> bytes:
    """Runtime-driven reads: BATCH_MATMUL (adjoints, broadcast batch), FULLY_CONNECTED with runtime
    weights, GATHER with runtime indices on a spatial and the channel axis, CUMSUM (exclusive,
    reverse, channel axis), ONE_HOT. Integer inputs: `idx` in [0, 5), `hot` in [0, 6)."""
    t = tf()

    def f(x, a, b, v, w, idx, hot):
        return _named({
            "bmm": t.matmul(a, b), "bmm_adj": t.matmul(b, a, transpose_a=True, transpose_b=True),
            "bmm_bcast": t.matmul(a, b[:1]), "fc_runtime": t.matmul(v, w, transpose_b=True),
            "gather_h": t.gather(x, idx, axis=1), "gather_c": t.gather(x, idx, axis=3) * 2.0,
            "cumsum_h": t.cumsum(x, axis=1), "cumsum_c_ex": t.math.cumsum(x, axis=3, exclusive=True),
            "cumsum_w_rev": t.math.cumsum(x, axis=2, reverse=True),
            "one_hot": t.one_hot(hot, 6, on_value=2.0, off_value=-1.0),
        })

    return convert_fn(f, [([1, 5, 6, 7], t.float32), ([2, 3, 5], t.float32), ([2, 5, 4], t.float32),
                          ([3, 9], t.float32), ([6, 9], t.float32), ([4], t.int32), ([2, 3], t.int32)])


@builder("k_tconv_bias")
def k_tconv_bias() -> bytes:
    """TRANSPOSE_CONV with a fused bias, SAME 4x4 stride 2 (padding 1) and VALID stride 3: the builtin twin of
    MediaPipe's Convolution2DTransposeBias custom op (tests rewrite one into the other)."""
    t = tf()

    def f(x):
        same = t.nn.conv2d_transpose(x, const([4, 4, 6, 5], 1), [1, 10, 14, 6], 2, "SAME") + const([6], 2)
        valid = t.nn.conv2d_transpose(x, const([2, 4, 3, 5], 3), [1, 15, 22, 3], 3, "VALID") + const([3], 4)
        return _named({"same": same, "valid": valid})

    return convert_fn(f, [([1, 5, 7, 5], t.float32)])


@builder("k_control_flow")
def k_control_flow() -> bytes:
    """WHILE (three turns of a scaled add and tanh on a [1,5,7,6] tensor) and IF (on a boolean
    input), each body a subgraph of its own."""
    t = tf()

    def f(x, flag):
        def body(i, v):
            return i + 1, t.tanh(v * 0.5 + const([6], 1))

        _, looped = t.while_loop(lambda i, v: i < 3, body, [t.constant(0), x])
        branched = t.cond(flag, lambda: looped * 2.0, lambda: t.nn.relu(looped - 0.25))
        return _named({"branched": branched, "looped": looped})

    return convert_fn(f, [([1, 5, 7, 6], t.float32), ([], t.bool)])


@builder("k_max_pool_same")
def k_max_pool_same() -> bytes:
    """One MAX_POOL_2D, 3x3 stride 2 SAME on [1, 7, 9, 6]: the builtin twin of MediaPipe's
    MaxPoolingWithArgmax2D (tests rewrite it and add a MaxUnpooling2D)."""
    t = tf()
    return convert_fn(lambda x: t.nn.max_pool2d(x, 3, 2, "SAME"), [([1, 7, 9, 6], t.float32)])


@builder("k_scores_plus_mask")
def k_scores_plus_mask() -> bytes:
    """Attention scores as the converter writes q x k^T (matmul with transpose_b): a FULLY_CONNECTED
    whose weights are the runtime keys and that has no bias, then the mask ADD it would fuse."""
    t = tf()
    mask = const([8, 12], seed=4)
    return convert_fn(lambda q, k: t.matmul(q, k, transpose_b=True) + mask,
                      [([8, 16], t.float32), ([12, 16], t.float32)])


@builder("k_mldrift_extras")
def k_mldrift_extras() -> bytes:
    """Ops the profiles delegate that the executor once lacked: ROUND, ATAN2, ADD_N (three
    operands), REDUCE_ANY, REDUCE_ALL and ARG_MAX as the converter writes them, and
    EMBEDDING_LOOKUP (runtime ids into a constant table), which TF writes as a GATHER on axis 0
    of the table: that GATHER turned into the EMBEDDING_LOOKUP it is (inputs ids, table), as
    other exporters write it."""
    from gpucompat import ir
    from gpucompat.ir import build

    t = tf()
    table = const([100, 6], seed=5)

    def f(x, y, z, ids):
        return _named({"round": t.round(x * 4.0), "atan2": t.math.atan2(x, y), "add_n": t.add_n([x, y, z]),
                       "lookup": t.gather(table, ids), "any": t.cast(t.reduce_any(x > y, axis=[1]), t.float32),
                       "all": t.cast(t.reduce_all(z > -1.0, axis=[0, 2], keepdims=True), t.float32),
                       "argmax_w": t.argmax(y, axis=2, output_type=t.int32), "argmax_h": t.argmax(z, axis=1)})

    model = ir.from_bytes(convert_fn(f, [([2, 5, 6], t.float32)] * 3 + [([7], t.int32)]))
    gather = next(op for op in model.graphs[0].ops if op.name == "GATHER")
    build.retype(gather, "EMBEDDING_LOOKUP")
    gather.inputs = [gather.inputs[1], gather.inputs[0]]
    model.graphs[0].link()
    return ir.to_bytes(model)
