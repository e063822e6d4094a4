"""One-op test models for the profile tables: tiny float graphs from TensorFlow's converter, several
independent single ops per model (one conversion each), plus flatbuffer edits for cases the
converter never writes (a version above a cap, a SIGN_BIT activation, a softmax beta, ...).

Builders whose name starts with "edit_" are flatbuffer edits of a converted model; the reference
interpreter need not run them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from gpucompat import ir
from modelgen import BUILDERS, builder, const, convert_fn, tf

X = [1, 4, 4, 8]


@builder("ops_unary")
def ops_unary() -> bytes:
    """One-argument elementwise ops and activations, each reading the input directly."""
    t = tf()

    def f(x):
        return (t.abs(x), t.cos(x), t.nn.elu(x), t.exp(x), t.math.log(x), t.sigmoid(x), t.negative(x),
                t.math.rsqrt(x), t.sin(x), t.sqrt(x), t.square(x), t.tanh(x), t.sign(x), t.nn.relu(x),
                t.nn.relu6(x), t.nn.leaky_relu(x, 0.1))

    return convert_fn(f, [(X, t.float32)])


@builder("ops_binary")
def ops_binary() -> bytes:
    """Two-argument elementwise ops on two runtime inputs, and ADD/MUL/SUB with a constant."""
    t = tf()
    c = const([8], seed=2)

    def f(x, y):
        return (x + y, x - y, x * y, x / y, t.pow(x, y), t.math.squared_difference(x, y), t.maximum(x, y),
                t.minimum(x, y), x + c, x * c, x - c)

    return convert_fn(f, [(X, t.float32), (X, t.float32)])


@builder("ops_floor")
def ops_floor() -> bytes:
    """FLOOR, FLOOR_DIV, FLOOR_MOD: OpenGL kernels only."""
    t = tf()

    def f(x, y):
        return t.floor(x), t.math.floordiv(x, y), t.math.floormod(x, y)

    return convert_fn(f, [(X, t.float32), (X, t.float32)])


@builder("ops_nn")
def ops_nn() -> bytes:
    """Convolutions, pooling, fully connected, softmax, concat, reshape and resize."""
    t = tf()
    w, dw, tw, fcw = const([3, 3, 8, 8]), const([3, 3, 8, 1], seed=1), const([3, 3, 4, 8], seed=3), const([8, 4], 4)

    def f(x):
        conv = t.nn.conv2d(x, w, 1, "SAME")
        depthwise = t.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME")
        tconv = t.nn.conv2d_transpose(x, tw, [1, 8, 8, 4], 2, "SAME")
        fc = t.matmul(t.reshape(x, [16, 8]), fcw)
        return (conv, depthwise, tconv, t.nn.avg_pool2d(x, 2, 2, "VALID"), t.nn.max_pool2d(x, 2, 2, "VALID"), fc,
                t.nn.softmax(x), t.concat([x, x * 2.0], axis=3), t.image.resize(x, [8, 8], "bilinear"),
                t.image.resize(x, [8, 8], "nearest"))

    return convert_fn(f, [(X, t.float32)])


@builder("ops_shape")
def ops_shape() -> bytes:
    """Shape and data-movement ops: mean/reductions, pad, slices, transpose, tile, split, gather."""
    t = tf()

    def f(x):
        a, b = t.split(x, 2, axis=3)
        c, d = t.split(x, [3, 5], axis=3)
        return (t.reduce_mean(x, axis=[1, 2], keepdims=True), t.reduce_max(x, axis=3), t.reduce_sum(x, axis=3),
                t.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]]), t.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT"),
                t.slice(x, [0, 1, 1, 0], [1, 2, 2, 8]), x[:, 1:3, :, 2:6], t.transpose(x, [0, 2, 1, 3]),
                t.tile(x, [1, 2, 1, 1]), a, b, c, d, t.gather(x, [0, 2], axis=3), t.nn.space_to_depth(x, 2),
                t.nn.depth_to_space(x, 2), t.cumsum(x, axis=3))

    return convert_fn(f, [(X, t.float32)])


@builder("ops_logic")
def ops_logic() -> bytes:
    """Comparisons feeding SELECT_V2 / CAST(->float) that is read again, CAST int32->float and
    ONE_HOT, each accepted."""
    t = tf()

    def f(x, y, i):
        return (t.where(x > y, x, y), t.cast(x < y, t.float32) * 2.0, t.cast(i, t.float32),
                t.one_hot(i, 5))

    return convert_fn(f, [(X, t.float32), (X, t.float32), ([1, 4], t.int32)])


@builder("ops_logic_rejects")
def ops_logic_rejects() -> bytes:
    """A bool->float CAST that is a graph output, a CAST of a bool graph input, a comparison
    feeding LOGICAL_AND, and GATHER with INT64 indices."""
    t = tf()

    def f(x, y, b):
        both = t.logical_and(x > y, b)
        return t.cast(x >= y, t.float32), t.cast(b, t.float32), t.where(both, x, y), \
            t.gather(x, t.constant([0, 2], t.int64), axis=3)

    return convert_fn(f, [(X, t.float32), (X, t.float32), (X, t.bool)])


@builder("ops_misc_rejects")
def ops_misc_rejects() -> bytes:
    """Identical-input DIV (Parse failure)."""
    t = tf()
    return convert_fn(lambda x: x / x, [(X, t.float32)])


@builder("ops_broadcast")
def ops_broadcast() -> bytes:
    """ADD of a 4-D and a 3-D runtime input (allowed) and of a 4-D and a [4,8] input (refused)."""
    t = tf()
    return convert_fn(lambda x, y, z: (x + y, x + z), [(X, t.float32), ([4, 4, 8], t.float32), ([4, 8], t.float32)])


@builder("ops_scalar")
def ops_scalar() -> bytes:
    """EXP of a 0-D runtime input: accepted at partitioning, refused at Parse."""
    t = tf()
    return convert_fn(lambda x: t.exp(x), [([], t.float32)])


@builder("ops_rank5")
def ops_rank5() -> bytes:
    """RELU on a 5-D tensor."""
    t = tf()
    return convert_fn(lambda x: t.nn.relu(x), [([1, 2, 2, 2, 8], t.float32)])


@builder("ops_one_hot_axis0")
def ops_one_hot_axis0() -> bytes:
    """ONE_HOT along axis 0 (neither -1 nor the last indices size)."""
    t = tf()
    return convert_fn(lambda i: t.one_hot(i, 5, axis=0), [([1, 4], t.int32)])


@builder("ops_reverse_slice")
def ops_reverse_slice() -> bytes:
    """A strided slice with a negative stride (Parse failure) and one that shrinks an axis."""
    t = tf()
    return convert_fn(lambda x: (x[:, ::-1, :, :] + 1.0, x[:, 1]), [(X, t.float32)])


@builder("ops_prelu")
def ops_prelu() -> bytes:
    """PRELU with a per-channel alpha (accepted)."""
    t = tf()
    layer = t.keras.layers.PReLU(shared_axes=[1, 2])
    layer.build(X)
    layer.set_weights([np.abs(const([1, 1, 8], seed=5))])
    return convert_fn(lambda x: layer(x), [(X, t.float32)])


@builder("ops_int8")
def ops_int8() -> bytes:
    """Full-integer CONV_2D with float I/O: QUANTIZE -> CONV_2D (int8) -> DEQUANTIZE."""
    t = tf()
    w = const([1, 1, 8, 8], seed=6)
    return convert_fn(lambda x: t.nn.conv2d(x, w, 1, "SAME"), [(X, t.float32)], quantize="int8")


def edit(source: str, change: Callable[[ir.Model], None]) -> Callable[[], bytes]:
    """A builder that applies `change` to the converted model `source` (flatbuffer object API)."""

    def build() -> bytes:
        model = ir.from_bytes(BUILDERS[source]())
        change(model)
        return ir.to_bytes(model)

    return build


def first(model: ir.Model, name: str) -> ir.Op:
    """The first op called `name` in the main subgraph."""
    return next(op for op in model.graphs[0].ops if op.name == name)


def set_version(name: str, version: int) -> Callable[[ir.Model], None]:
    """Raise the version of the opcode used by op `name`."""

    def change(model: ir.Model) -> None:
        op = first(model, name)
        op.code = replace(op.code, version=version)

    return change


def set_option(name: str, field: str, value) -> Callable[[ir.Model], None]:
    """Set a builtin option field of the first op `name`."""

    def change(model: ir.Model) -> None:
        setattr(first(model, name).options, field, value)

    return change


EDITS = {
    "edit_conv_v7": ("ops_nn", set_version("CONV_2D", 7)),
    "edit_conv_sign_bit": ("ops_nn", set_option("CONV_2D", "fusedActivationFunction", 5)),
    "edit_softmax_beta": ("ops_nn", set_option("SOFTMAX", "beta", 2.0)),
    "edit_resize_both_flags": ("ops_nn", lambda m: (set_option("RESIZE_BILINEAR", "alignCorners", True)(m),
                                                    set_option("RESIZE_BILINEAR", "halfPixelCenters", True)(m))),
    "edit_mirror_symmetric": ("ops_shape", set_option("MIRROR_PAD", "mode", 1)),
    "edit_strided_slice_v5": ("ops_shape", set_version("STRIDED_SLICE", 5)),
    "edit_conv_sigmoid": ("ops_nn", set_option("CONV_2D", "fusedActivationFunction", 6)),
    "edit_add_sign_bit": ("ops_binary", set_option("ADD", "fusedActivationFunction", 5)),
}
for _name, (_source, _change) in EDITS.items():
    builder(_name)(edit(_source, _change))

