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
            out[f"c{c:02d}a"] = t.nn.depthwise_conv2d(x, const([3, 3, c, 1], i), [1, 1, 1, 1], "SAME") + const([c], 9 + i)
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
            "tile": t.tile(x, [1, 2, 1, 2]), "d2s": t.nn.depth_to_space(y, 2), "s2d": t.nn.space_to_depth(x[:, :4, :4, :], 2),
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
        out = {"fc": t.matmul(v, const([9, 5], 1)) + const([5], 2), "fc_relu": t.nn.relu(t.matmul(v, const([9, 16], 3)))}
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
