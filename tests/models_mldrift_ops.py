"""One-op and small models that calibrated `litert-mldrift` against LiteRT's GPU accelerator
(docs/fidelity.md): every op of its table, broadcasting, identical inputs, 5-D, INT32/INT64,
scalars, op parameters, SHAPE chains under a dynamic batch, registered and unregistered custom
ops, control flow with dynamic tensors. All names start with "md_".

Left out on purpose: a RESIZE_BILINEAR with both flags (tests/models_ops.py has it) and the
custom codes Mfcc, AudioSpectrogram and TFLite_Detection_PostProcess on a dummy tensor (their
CPU kernels crash the process on it: an invalid model, not a delegate fact)."""

import struct

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.ir import build, dtypes, opcodes
from gpucompat.ir.nodes import Op, OpCode
from modelgen import builder, const, convert_fn, tf

F, I32 = np.float32, np.int32
X4, X2, X3 = ([1, 8, 8, 8], F), ([4, 8], F), ([2, 6, 8], F)
DYN = ([None, 8, 8, 4], F)

# name -> t -> (function, input specs); `t` is TensorFlow, imported when a model is first built
ONE_OP = {
    "add_rt": lambda t: (lambda a, b: a + b, [X4, X4]),
    "add_const": lambda t: (lambda a: a + const([8]), [X4]),
    "add_same": lambda t: (lambda a: a + a, [X4]),
    "sub_same": lambda t: (lambda a: a - a, [X4]),
    "mul_same": lambda t: (lambda a: a * a, [X4]),
    "div_same": lambda t: (lambda a: a / a, [X4]),
    "max_same": lambda t: (lambda a: t.maximum(a, a), [X4]),
    "sub_rt": lambda t: (lambda a, b: a - b, [X4, X4]),
    "div_rt": lambda t: (lambda a, b: a / b, [X4, X4]),
    "pow_rt": lambda t: (t.pow, [X4, X4]),
    "sqdiff": lambda t: (t.math.squared_difference, [X4, X4]),
    "floordiv": lambda t: (t.math.floordiv, [X4, X4]),
    "floormod": lambda t: (t.math.floormod, [X4, X4]),
    "maximum": lambda t: (t.maximum, [X4, X4]),
    "minimum": lambda t: (lambda a: t.minimum(a, const([8])), [X4]),
    "atan2": lambda t: (t.math.atan2, [X4, X4]),
    "bcast_4d_3d": lambda t: (lambda a, b: a + b, [X4, ([8, 1, 8], F)]),
    "bcast_numpy": lambda t: (lambda a, b: a * b, [([2, 1, 3], F), ([1, 4, 1], F)]),
    "bcast_batch": lambda t: (lambda a, b: a - b, [([2, 4, 4, 8], F), ([1, 4, 1, 8], F)]),
    "bcast_5d": lambda t: (lambda a, b: a + b, [([1, 2, 2, 2, 4], F), ([1, 2, 2, 2, 4], F)]),
    "abs": lambda t: (t.abs, [X4]), "ceil": lambda t: (t.math.ceil, [X4]), "cos": lambda t: (t.cos, [X4]),
    "exp": lambda t: (t.exp, [X4]), "floor": lambda t: (t.floor, [X4]), "log": lambda t: (t.math.log, [X4]),
    "neg": lambda t: (t.negative, [X4]), "round": lambda t: (t.round, [X4]), "rsqrt": lambda t: (t.math.rsqrt, [X4]),
    "sin": lambda t: (t.sin, [X4]), "sqrt": lambda t: (t.sqrt, [X4]), "square": lambda t: (t.square, [X4]),
    "tanh": lambda t: (t.tanh, [X4]), "logistic": lambda t: (t.sigmoid, [X4]), "elu": lambda t: (t.nn.elu, [X4]),
    "hard_swish": lambda t: (lambda a: a * t.nn.relu6(a + 3.0) / 6.0, [X4]),
    "relu": lambda t: (t.nn.relu, [X4]), "relu6": lambda t: (t.nn.relu6, [X4]),
    "relu_n1": lambda t: (lambda a: t.clip_by_value(a, -1.0, 1.0), [X4]),
    "leaky_relu": lambda t: (lambda a: t.nn.leaky_relu(a, 0.2), [X4]),
    "gelu": lambda t: (t.nn.gelu, [X4]), "sign": lambda t: (t.sign, [X4]),
    "log_softmax": lambda t: (t.nn.log_softmax, [X2]), "softmax": lambda t: (t.nn.softmax, [X2]),
    "softmax_scaled": lambda t: (lambda a: t.nn.softmax(a * 2.0), [X2]),
    "prelu": lambda t: (lambda a: t.maximum(a, 0.0) + const([8]) * t.minimum(a, 0.0), [X4]),
    "conv": lambda t: (lambda a: t.nn.conv2d(a, const([3, 3, 8, 4]), 1, "SAME"), [X4]),
    "conv_dilated": lambda t: (lambda a: t.nn.conv2d(a, const([3, 3, 8, 4]), 1, "SAME", dilations=2), [X4]),
    "conv_rt_w": lambda t: (lambda a, w: t.nn.conv2d(a, w, 1, "SAME"), [X4, ([3, 3, 8, 4], F)]),
    "dwconv": lambda t: (lambda a: t.nn.depthwise_conv2d(a, const([3, 3, 8, 1]), [1, 1, 1, 1], "SAME"), [X4]),
    "dwconv_mult2": lambda t: (lambda a: t.nn.depthwise_conv2d(a, const([3, 3, 8, 2]), [1, 1, 1, 1], "SAME"), [X4]),
    "tconv": lambda t: (lambda a: t.nn.conv2d_transpose(a, const([3, 3, 4, 8]), [1, 16, 16, 4], 2, "SAME"), [X4]),
    "fc": lambda t: (lambda a: t.matmul(a, const([8, 5])), [X2]),
    "fc_3d": lambda t: (lambda a: t.matmul(a, const([8, 5])), [X3]),
    "bmm_rt": lambda t: (t.matmul, [X3, ([2, 8, 5], F)]),
    "avgpool": lambda t: (lambda a: t.nn.avg_pool2d(a, 2, 2, "VALID"), [X4]),
    "maxpool": lambda t: (lambda a: t.nn.max_pool2d(a, 3, 2, "SAME"), [X4]),
    "mean_hw": lambda t: (lambda a: t.reduce_mean(a, [1, 2]), [X4]),
    "mean_c": lambda t: (lambda a: t.reduce_mean(a, [3], keepdims=True), [X4]),
    "sum": lambda t: (lambda a: t.reduce_sum(a, [1]), [X4]),
    "rmax": lambda t: (lambda a: t.reduce_max(a, [2]), [X4]), "rmin": lambda t: (lambda a: t.reduce_min(a, [2]), [X4]),
    "rprod": lambda t: (lambda a: t.reduce_prod(a, [2]), [X4]),
    "rany": lambda t: (lambda a: t.cast(t.reduce_any(a > 0.0, [2]), F), [X4]),
    "argmax": lambda t: (lambda a: t.argmax(a, axis=3, output_type=t.int32), [X4]),
    "argmax64": lambda t: (lambda a: t.argmax(a, axis=3), [X4]),
    "argmin": lambda t: (lambda a: t.argmin(a, axis=3, output_type=t.int32), [X4]),
    "topk": lambda t: (lambda a: t.math.top_k(a, 3)[0], [X2]),
    "concat_c": lambda t: (lambda a, b: t.concat([a, b], 3), [X4, X4]),
    "concat_h": lambda t: (lambda a, b: t.concat([a, b], 1), [X4, X4]),
    "concat_same": lambda t: (lambda a: t.concat([a, a], 3), [X4]),
    "pack": lambda t: (lambda a, b: t.stack([a, b], 1), [X3, X3]),
    "unpack": lambda t: (lambda a: t.unstack(a, axis=0)[0] * 2.0, [X3]),
    "split": lambda t: (lambda a: t.split(a, 2, axis=3)[1] + 1.0, [X4]),
    "splitv": lambda t: (lambda a: t.split(a, [2, 6], axis=3)[1] + 1.0, [X4]),
    "reshape": lambda t: (lambda a: t.reshape(a, [1, 64, 8]), [X4]),
    "squeeze": lambda t: (lambda a: t.squeeze(a, 0) + 1.0, [X4]),
    "expand_dims": lambda t: (lambda a: t.expand_dims(a, 1) + 1.0, [X3]),
    "transpose": lambda t: (lambda a: t.transpose(a, [0, 2, 1, 3]), [X4]),
    "transpose_5d": lambda t: (lambda a: t.transpose(a, [0, 2, 1, 3, 4]), [([1, 2, 3, 4, 5], F)]),
    "pad": lambda t: (lambda a: t.pad(a, [[0, 0], [1, 1], [2, 2], [0, 0]]), [X4]),
    "pad_batch": lambda t: (lambda a: t.pad(a, [[1, 0], [1, 1], [2, 2], [0, 0]]), [X4]),
    "padv2": lambda t: (lambda a: t.pad(a, [[0, 0], [1, 1], [2, 2], [0, 0]], constant_values=1.5), [X4]),
    "pad_rt": lambda t: (t.pad, [([1, 4, 4, 8], F), ([4, 2], I32)]),
    "mirror_reflect": lambda t: (lambda a: t.pad(a, [[0, 0], [1, 1], [2, 2], [0, 0]], mode="REFLECT"), [X4]),
    "mirror_symm": lambda t: (lambda a: t.pad(a, [[0, 0], [1, 1], [2, 2], [0, 0]], mode="SYMMETRIC"), [X4]),
    "slice": lambda t: (lambda a: t.slice(a, [0, 1, 1, 0], [1, 4, 4, 8]), [X4]),
    "sslice": lambda t: (lambda a: a[:, 1:7:2, ::2, :], [X4]),
    "sslice_shrink": lambda t: (lambda a: a[:, 1, :, :], [X4]),
    "sslice_rev": lambda t: (lambda a: a[:, ::-1, :, :], [X4]),
    "tile": lambda t: (lambda a: t.tile(a, [1, 2, 1, 1]), [X4]),
    "bcast_to": lambda t: (lambda a: t.broadcast_to(a, [2, 8, 8, 8]), [X4]),
    "gather": lambda t: (lambda a: t.gather(a, [0, 2, 3], axis=1), [X4]),
    "gather_rt": lambda t: (lambda a, i: t.gather(a, i, axis=1), [X4, ([3], I32)]),
    "gather_nd": lambda t: (lambda a: t.gather_nd(a, [[0, 1], [0, 2]]), [X4]),
    "embedding": lambda t: (lambda i: t.nn.embedding_lookup(const([10, 8]), i), [([4], I32)]),
    "embedding3": lambda t: (lambda i: t.nn.embedding_lookup(const([10, 2, 8]), i), [([4], I32)]),
    "resize_bil": lambda t: (lambda a: t.image.resize(a, [16, 16]), [X4]),
    "resize_bil_ac": lambda t: (lambda a: t.compat.v1.image.resize_bilinear(a, [16, 16], align_corners=True), [X4]),
    "resize_nn": lambda t: (lambda a: t.image.resize(a, [16, 16], method="nearest"), [X4]),
    "resize_down": lambda t: (lambda a: t.image.resize(a, [4, 4]), [X4]),
    "d2s": lambda t: (lambda a: t.nn.depth_to_space(a, 2), [X4]),
    "s2d": lambda t: (lambda a: t.nn.space_to_depth(a, 2), [X4]),
    "stb": lambda t: (lambda a: t.space_to_batch_nd(a, [2, 2], [[0, 0], [0, 0]]), [X4]),
    "bts": lambda t: (lambda a: t.compat.v1.batch_to_space_nd(a, [2, 2], [[0, 0], [0, 0]]), [([4, 4, 4, 8], F)]),
    "cast_i2f": lambda t: (lambda a: t.cast(a, F) * 2.0, [([1, 4, 4, 8], I32)]),
    "cast_f2i": lambda t: (lambda a: t.cast(a, t.int32), [X4]),
    "less_select": lambda t: (lambda a, b: t.where(a < b, a, b), [X4, X4]),
    "greater_cast": lambda t: (lambda a, b: t.cast(a > b, F), [X4, X4]),
    "equal_out": lambda t: (t.equal, [X4, X4]),
    "logical_and": lambda t: (lambda a, b: t.cast(t.logical_and(a > 0.0, b > 0.0), F), [X4, X4]),
    "logical_or": lambda t: (lambda a, b: t.cast(t.logical_or(a > 0.0, b > 0.0), F), [X4, X4]),
    "logical_not": lambda t: (lambda a: t.cast(t.logical_not(a > 0.0), F), [X4]),
    "select_v2_bcast": lambda t: (lambda a: t.where(a > 0.0, a, 0.0), [X4]),
    "cumsum": lambda t: (lambda a: t.cumsum(a, axis=2), [X4]),
    "reverse": lambda t: (lambda a: t.reverse(a, [2]), [X4]),
    "l2norm": lambda t: (lambda a: t.nn.l2_normalize(a, -1), [X4]),
    "lrn": lambda t: (t.nn.local_response_normalization, [X4]),
    "one_hot": lambda t: (lambda i: t.one_hot(i, 8), [([1, 4], I32)]),
    "rank5_relu": lambda t: (t.nn.relu, [([1, 2, 2, 2, 4], F)]),
    "rank0": lambda t: (lambda a: a * 2.0 + 1.0, [([], F)]),
    "rank0_rt_tensor": lambda t: (lambda a, s: a + s, [X4, ([], F)]),
    "rank0_rt_rank0": lambda t: (lambda a, s: a * s, [([], F), ([], F)]),
    "rank1": lambda t: (lambda a: a * 2.0 + 1.0, [([8], F)]),
    "mul_int": lambda t: (lambda a: a * 2, [([1, 4, 4, 8], I32)]),
    "add_int": lambda t: (lambda a, b: a + b, [([1, 4, 4, 8], I32), ([1, 4, 4, 8], I32)]),
    "sum_int": lambda t: (lambda a: t.reduce_sum(a, [1]), [([1, 4, 4, 8], I32)]),
    "where": lambda t: (lambda a: t.gather_nd(a, t.where(a > 0.0)), [([4, 4], F)]),
}


def _base(t):
    """CONV 1x1 (4->8) + RELU: the float head of the SHAPE-chain models."""
    return lambda x: t.nn.relu(t.nn.conv2d(x, const([1, 1, 4, 8]), 1, "SAME"))


# SHAPE -> ... -> RESHAPE chains under a dynamic batch: which fold at prepare (docs/fidelity.md)
SHAPE_CHAINS = {
    "shape_reshape": lambda t, b: lambda x: t.reshape(t.transpose(b(x), [0, 2, 1, 3]), t.shape(b(x))),
    "shape_ss_concat": lambda t, b: lambda x: t.reshape(b(x), t.concat([t.shape(x)[:1], [-1]], 0)),
    "shape_gather": lambda t, b: lambda x: t.reshape(b(x), t.gather(t.shape(x), [0, 1, 2]) * [1, 8, 1]),
    "shape_gather_only": lambda t, b: lambda x: t.reshape(b(x), t.concat([t.gather(t.shape(x), [0]), [8, 8, 8]], 0)),
    "shape_fill": lambda t, b: lambda x: t.zeros(t.shape(x)) + x,
    "shape_bcast": lambda t, b: lambda x: t.broadcast_to(t.reduce_mean(x, [0], keepdims=True), t.shape(x)),
    "shape_prod": lambda t, b: lambda x: t.reshape(b(x), t.stack([t.shape(x)[0], t.reduce_prod(t.shape(x)[1:3]) * 8])),
    "shape_cast": lambda t, b: lambda x: t.reshape(b(x), t.cast(t.cast(t.shape(x), F), t.int32)),
    "shape_add": lambda t, b: lambda x: t.reshape(b(x), t.shape(x) + [0, 0, 0, 4]),
    "shape_sub": lambda t, b: lambda x: t.reshape(b(x), t.shape(x) - [0, 0, 0, -4]),
    "shape_slice": lambda t, b: lambda x: t.reshape(b(x), t.concat([t.slice(t.shape(x), [0], [3]), [8]], 0)),
    "dyn_plain": lambda t, b: lambda x: t.reduce_mean(b(x), [1, 2]),
}


def _one_op(name: str):
    def build() -> bytes:
        fn, specs = ONE_OP[name](tf())
        return convert_fn(fn, specs)
    return build


def _shape_chain(name: str):
    def build() -> bytes:
        t = tf()
        return convert_fn(SHAPE_CHAINS[name](t, _base(t)), [DYN])
    return build


for _name in ONE_OP:
    builder(f"md_{_name}")(_one_op(_name))
for _name in SHAPE_CHAINS:
    builder(f"md_{_name}")(_shape_chain(_name))


def _edited(source: str, change) -> bytes:
    """The one-op model `source` with `change(first_op)` applied through the object API."""
    model = ir.from_bytes(_one_op(source)())
    change(model.graphs[0].ops[0])
    return ir.to_bytes(model)


def _option(field: str, value):
    def change(op):
        setattr(op.options, field, value)
    return change


def _custom(code: str):
    def change(op):
        op.code = OpCode(opcodes.CUSTOM, code, 1)
        op.fb.builtinOptions, op.fb.builtinOptionsType = None, 0
    return change


def _mediapipe_tconv_bias(op):
    """The converted TRANSPOSE_CONV (output_shape, weights, input) rewritten the way MediaPipe's
    converter writes Convolution2DTransposeBias (as in selfie_segmentation.tflite): inputs input,
    weights [O, H, W, I], bias [O]; no builtin options; custom_options holding the
    TfLiteTransposeConvParams struct as three little-endian int32 (padding as TfLitePadding,
    1 = SAME, 2 = VALID; stride_w; stride_h), e.g. 01000000 02000000 02000000."""
    o = op.options
    weights = op.inputs[1]
    bias = build.constant(op.graph, "bias", np.linspace(-0.5, 0.5, weights.shape[0], dtype=F))
    op.code = OpCode(opcodes.CUSTOM, "Convolution2DTransposeBias", 1)
    op.set_inputs([op.inputs[2], weights, bias])
    op.fb.builtinOptions, op.fb.builtinOptionsType = None, 0
    op.fb.customOptions = list(struct.pack("<3i", o.padding + 1, o.strideW, o.strideH))
    op.graph.cleanup()


def _tconv_bias_variant(options: bytes | None | str = "as written", inputs: int = 3):
    """MediaPipe's Convolution2DTransposeBias with other custom_options bytes or fewer inputs."""
    def change(op):
        _mediapipe_tconv_bias(op)
        if options != "as written":
            op.fb.customOptions = None if options is None else list(options)
        op.set_inputs(op.inputs[:inputs])
        op.graph.cleanup()
    return change


def _mediapipe_argmax_unpool(op):
    """A converted AVERAGE_POOL_2D (2x2, stride 2, VALID) rewritten into MediaPipe's pooling pair
    as its segmentation models use it: MaxPoolingWithArgmax2D (input -> values and indices, the
    indices stored as FLOAT32, the type XNNPACK takes for them) feeding MaxUnpooling2D (values,
    indices -> the input's shape), each with the TfLitePoolParams struct in custom_options: ten
    little-endian int32 (padding as TfLitePadding, 2 = VALID; stride_w, stride_h, filter_w,
    filter_h, activation, then four computed padding values)."""
    g = op.graph
    params = list(struct.pack("<10i", 2, 2, 2, 2, 2, 0, 0, 0, 0, 0))
    values = op.outputs[0]
    indices = build.tensor(g, "argmax_indices", values.shape, dtypes.FLOAT32)
    restored = build.tensor(g, "unpooled", op.inputs[0].shape, dtypes.FLOAT32)
    op.code = OpCode(opcodes.CUSTOM, "MaxPoolingWithArgmax2D", 1)
    g.detach(op, inputs=False)
    op.outputs.append(indices)  # Op has no editing method for a new output
    g.attach(op, inputs=False)
    op.fb.builtinOptions, op.fb.builtinOptionsType, op.fb.customOptions = None, 0, params
    unpool = Op(fb.OperatorT(), g, OpCode(opcodes.CUSTOM, "MaxUnpooling2D", 1), [values, indices], [restored])
    unpool.fb.customOptions = list(params)
    g.insert_op(1, unpool)
    g.outputs = [restored]
    g.model.signature_links = [(tm, restored if t is values else t) for tm, t in g.model.signature_links]


def _resampler(op):
    """A converted two-input ADD relabelled as Resampler with the layout the op takes: data
    [1, 8, 8, 8] and warp [1, 8, 8, 2] (x, y per output pixel); it has no parameters."""
    build.reshape_tensor(op.inputs[1], [1, 8, 8, 2])
    _custom("Resampler")(op)


def _as_lookup(op):
    """GATHER(table, ids) -> EMBEDDING_LOOKUP(ids, table): TensorFlow 2.21's converter never
    writes EMBEDDING_LOOKUP (tf.nn.embedding_lookup becomes GATHER)."""
    build.retype(op, "EMBEDDING_LOOKUP")
    op.set_inputs([op.inputs[1], op.inputs[0]])


EDITS = {
    "embedding_lookup": ("embedding", _as_lookup),
    "embedding_lookup_rank3": ("embedding3", _as_lookup),
    "sub_sign_bit": ("sub_rt", _option("fusedActivationFunction", 5)),
    "d2s_block1": ("d2s", _option("blockSize", 1)),
    # MediaPipe's transposed convolution with bias, written as MediaPipe writes it
    "custom_tconv_bias": ("tconv", _mediapipe_tconv_bias),
    # ... and its parser's refusals: parameters missing, a zero stride, the weights missing
    "custom_tconv_bias_no_options": ("tconv", _tconv_bias_variant(options=None)),
    "custom_tconv_bias_stride0": ("tconv", _tconv_bias_variant(options=struct.pack("<3i", 1, 0, 2))),
    "custom_tconv_bias_one_input": ("tconv", _tconv_bias_variant(inputs=1)),
    "custom_argmax_unpool": ("avgpool", _mediapipe_argmax_unpool),
    "custom_resampler_warp": ("add_rt", _resampler),
    # the runtime registers these custom codes (the model loads); the GPU takes none of them
    **{f"custom_{code}": ("tanh", _custom(code)) for code in (
        "MaxPoolingWithArgmax2D", "MaxUnpooling2D", "Resampler",
        # ... and not these (MediaPipe's): the model does not load
        "TransformTensorBilinear", "Landmarks2TransformMatrix", "TransformLandmarks", "MyCustomOp")},
}
for _name, (_source, _change) in EDITS.items():
    builder(f"md_{_name}")(lambda s=_source, c=_change: _edited(s, c))


@builder("md_while_main_dynamic")
def while_main_dynamic() -> bytes:
    """WHERE before a WHILE in the main graph: the loop runs on a dynamic tensor."""
    t = tf()

    def f(x):
        x = t.gather_nd(x, t.where(x > 0.0))
        _, y = t.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, t.nn.relu(y * 0.5 + 1.0)), [t.constant(0), x],
                            shape_invariants=[t.TensorShape([]), t.TensorShape([None])])
        return t.reduce_sum(y)

    return convert_fn(f, [([2, 3], F)])


@builder("md_cond_gather_nd")
def cond_gather_nd() -> bytes:
    """IF whose true branch holds a GATHER_ND; the branches give different shapes."""
    t = tf()

    def f(x, p):
        y = t.nn.relu(x) + 1.0
        return t.cond(p[0] > 0.0, lambda: t.tanh(t.gather_nd(y, [[0, 1], [0, 2]]) * 2.0), lambda: y[0, 0] * 3.0)

    return convert_fn(f, [([1, 4, 4, 8], F), ([1], F)])


@builder("md_lstm")
def lstm() -> bytes:
    """A Keras LSTM(8) over 5 steps (a WHILE loop after conversion)."""
    t = tf()
    layer = t.keras.layers.LSTM(8)
    return convert_fn(lambda x: layer(x), [([1, 5, 4], F)])


@builder("md_cnn_dynamic_range")
def cnn_dynamic_range() -> bytes:
    """Two convolutions and a MEAN, dynamic-range quantized."""
    t = tf()
    w1, w2 = const([3, 3, 4, 8]), const([3, 3, 8, 8], seed=1)

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, w1, 1, "SAME"))
        return t.reduce_mean(t.nn.relu(t.nn.conv2d(y, w2, 1, "SAME")), [1, 2])

    return convert_fn(f, [([1, 8, 8, 4], F)], quantize="dynamic")


@builder("md_sparse_dynamic_range")
def sparse_dynamic_range() -> bytes:
    """DENSIFY(int8 per-channel sparse weights) -> FULLY_CONNECTED: the GPU model builder aborts
    the process on it."""
    t = tf()
    w = const([64, 64])
    w[np.random.default_rng(3).random(w.shape) < 0.9] = 0

    class Module(t.Module):
        @t.function(input_signature=[t.TensorSpec([1, 64], t.float32)])
        def __call__(self, x):
            return t.nn.relu(t.matmul(x, t.constant(w)))

    m = Module()
    conv = t.lite.TFLiteConverter.from_concrete_functions([m.__call__.get_concrete_function()], m)
    conv.optimizations = [t.lite.Optimize.DEFAULT, t.lite.Optimize.EXPERIMENTAL_SPARSITY]
    return conv.convert()
