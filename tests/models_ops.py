"""One-op test models for the profile tables: tiny float graphs written with the IR builder
(tests/irbuild.py) as TensorFlow's converter writes them (its op versions, options and weight
layouts), several independent single ops per model, plus flatbuffer edits for cases the converter
never writes (a version above a cap, a SIGN_BIT activation, a softmax beta, ...).

Builders whose name starts with "edit_" are flatbuffer edits of a converted model; the reference
interpreter need not run them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from gpucompat import ir
from irbuild import IRModel, conv_options, one_op, options
from modelgen import BUILDERS, builder, const

X = [1, 4, 4, 8]


def _unary(m: IRModel, op: str, x: int, shape=X, **fields) -> int:
    """`op` of `x`, with its options record when the converter writes one (`fields` set in it)."""
    kind = {"EXP": "Exp", "NEG": "Neg", "SQUARE": "Square", "LEAKY_RELU": "LeakyRelu"}.get(op)
    return m.op(op, [x], shape, options=options(kind, **fields) if kind else None)


def _binary(m: IRModel, op: str, a: int, b: int, shape=X, version: int = 1) -> int:
    """`op` of `a` and `b`, with the options record the converter writes for it."""
    kind = {"ADD": "Add", "SUB": "Sub", "MUL": "Mul", "DIV": "Div"}.get(op)
    return m.op(op, [a, b], shape, options=options(kind) if kind else None, version=version)


@builder("ops_unary")
def ops_unary() -> bytes:
    """One-argument elementwise ops and activations, each reading the input directly."""
    m = IRModel(signature="serving_default")
    x = m.input("x", X)
    m.output(*(_unary(m, op, x) for op in ("ABS", "COS", "ELU", "EXP")),
             _unary(m, "LEAKY_RELU", x, alpha=0.1),
             *(_unary(m, op, x) for op in ("LOG", "NEG", "RELU", "RELU6", "RSQRT", "LOGISTIC", "SIGN", "SIN", "SQRT",
                                           "SQUARE", "TANH")))
    return m.bytes()


@builder("ops_binary")
def ops_binary() -> bytes:
    """Two-argument elementwise ops on two runtime inputs, and ADD/MUL/SUB with a constant."""
    m = IRModel(signature="serving_default")
    x, y = m.input("x", X), m.input("y", X)
    c = m.const("c", const([8], seed=2))
    m.output(_binary(m, "ADD", x, c),
             *(_binary(m, op, x, y) for op in ("MAXIMUM", "MINIMUM", "POW", "SQUARED_DIFFERENCE", "ADD", "MUL", "SUB",
                                               "DIV")),
             _binary(m, "MUL", x, c), _binary(m, "SUB", x, c))
    return m.bytes()


@builder("ops_floor")
def ops_floor() -> bytes:
    """FLOOR, FLOOR_DIV, FLOOR_MOD: OpenGL kernels only."""
    m = IRModel(signature="serving_default")
    x, y = m.input("x", X), m.input("y", X)
    m.output(m.op("FLOOR", [x], X), _binary(m, "FLOOR_MOD", x, y), _binary(m, "FLOOR_DIV", x, y, version=2))
    return m.bytes()


@builder("ops_nn")
def ops_nn() -> bytes:
    """Convolutions, pooling, fully connected, softmax, concat, reshape and resize."""
    m = IRModel(signature="serving_default")
    x = m.input("x", X)
    w, dw, tw, fcw = const([3, 3, 8, 8]), const([3, 3, 8, 1], seed=1), const([3, 3, 4, 8], seed=3), const([8, 4], 4)
    zeros, size = m.const("bias", np.zeros(8, np.float32)), m.const("size", np.array([8, 8], np.int32))

    def pool(op: str) -> int:
        return m.op(op, [x], [1, 2, 2, 8], options=options("Pool2D", padding="VALID", strideW=2, strideH=2,
                                                            filterWidth=2, filterHeight=2))

    def resize(op: str, kind: str) -> int:
        return m.op(op, [x, size], [1, 8, 8, 8], options=options(kind, halfPixelCenters=True), version=3)

    outs = [pool("AVERAGE_POOL_2D"),
            m.op("CONV_2D", [x, m.const("conv/w", w.transpose(3, 0, 1, 2)), zeros], X, options=conv_options()),
            pool("MAX_POOL_2D"),
            m.op("FULLY_CONNECTED", [x, m.const("fc/w", fcw.T.copy()), -1], [16, 4], options=options("FullyConnected")),
            m.op("SOFTMAX", [x], X, options=options("Softmax", beta=1.0)),
            m.op("TRANSPOSE_CONV", [m.const("tconv/output_shape", np.array([1, 8, 8, 4], np.int32)),
                                    m.const("tconv/w", tw.transpose(2, 0, 1, 3).copy()), x], [1, 8, 8, 4],
                 options=options("TransposeConv", padding="SAME", strideW=2, strideH=2)),
            m.op("DEPTHWISE_CONV_2D", [x, m.const("depthwise/w", dw.reshape(1, 3, 3, 8)), zeros], X,
                 options=options("DepthwiseConv2D", padding="SAME", strideW=1, strideH=1, depthMultiplier=1))]
    doubled = _binary(m, "MUL", x, m.const("two", np.float32(2.0)))
    outs += [m.op("CONCATENATION", [x, doubled], [1, 4, 4, 16], options=options("Concatenation", axis=3)),
             resize("RESIZE_BILINEAR", "ResizeBilinear"), resize("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighbor")]
    m.output(*outs)
    return m.bytes()


@builder("ops_shape")
def ops_shape() -> bytes:
    """Shape and data-movement ops: mean/reductions, pad, slices, transpose, tile, split, gather."""
    m = IRModel(signature="serving_default")
    x = m.input("x", X)
    axis = m.const("axis", np.int32(3))  # one constant for every op reading axis 3
    pads = m.const("paddings", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))

    def ints(name: str, value: list) -> int:
        return m.const(name, np.array(value, np.int32))

    outs = [m.op("CUMSUM", [x, axis], X, options=options("Cumsum")),
            m.op("DEPTH_TO_SPACE", [x], [1, 8, 8, 2], options=options("DepthToSpace", blockSize=2)),
            m.op("GATHER", [x, ints("gather/indices", [0, 2])], [1, 4, 4, 2], options=options("Gather", axis=3)),
            m.op("REDUCE_MAX", [x, axis], [1, 4, 4], options=options("Reducer")),
            m.op("MEAN", [x, ints("mean/axes", [1, 2])], [1, 1, 1, 8], options=options("Reducer", keepDims=True)),
            m.op("MIRROR_PAD", [x, pads], [1, 6, 6, 8], options=options("MirrorPad", mode=0)),  # REFLECT
            m.op("PAD", [x, pads], [1, 6, 6, 8], options=options("Pad")),
            m.op("SLICE", [x, ints("slice/begin", [0, 1, 1, 0]), ints("slice/size", [1, 2, 2, 8])], [1, 2, 2, 8]),
            m.op("SPACE_TO_DEPTH", [x], [1, 2, 2, 32], options=options("SpaceToDepth", blockSize=2)),
            m.op("SUM", [x, axis], [1, 4, 4], options=options("Reducer")),
            m.op("TILE", [x, ints("tile/multiples", [1, 2, 1, 1])], [1, 8, 4, 8]),
            *m.split("SPLIT", [axis, x], [[1, 4, 4, 4]] * 2, options=options("Split", numSplits=2)),
            *m.split("SPLIT_V", [x, ints("split/sizes", [3, 5]), axis], [[1, 4, 4, 3], [1, 4, 4, 5]],
                     options=options("SplitV", numSplits=2)),
            m.op("STRIDED_SLICE", [x, ints("ss/begin", [0, 1, 0, 2]), ints("ss/end", [0, 3, 0, 6]),
                                   ints("ss/strides", [1, 1, 1, 1])], [1, 2, 4, 4],
                 options=options("StridedSlice", beginMask=5, endMask=5)),
            m.op("TRANSPOSE", [x, ints("perm", [0, 2, 1, 3])], X)]
    m.output(*outs)
    return m.bytes()


def _one_hot(m: IRModel, i: int, axis: int, shape: list) -> int:
    """ONE_HOT of int32 indices `i`, depth 5, on 1.0 and off 0.0, along `axis`."""
    return m.op("ONE_HOT", [i, m.const("depth", np.int32(5)), m.const("on", np.float32(1.0)),
                            m.const("off", np.float32(0.0))], shape, options=options("OneHot", axis=axis))


@builder("ops_logic")
def ops_logic() -> bytes:
    """Comparisons feeding SELECT_V2 / CAST(->float) that is read again, CAST int32->float and
    ONE_HOT, each accepted."""
    m = IRModel(signature="serving_default")
    x, y, i = m.input("x", X), m.input("y", X), m.input("i", [1, 4], "INT32")
    selected = m.op("SELECT", [m.op("GREATER", [x, y], X, "BOOL"), x, y], X, options=options("Select"))
    less = m.op("CAST", [m.op("LESS", [x, y], X, "BOOL")], X)
    as_float = m.op("CAST", [i], [1, 4])
    doubled = _binary(m, "MUL", less, m.const("two", np.float32(2.0)))
    m.output(selected, doubled, as_float, _one_hot(m, i, -1, [1, 4, 5]))
    return m.bytes()


@builder("ops_logic_rejects")
def ops_logic_rejects() -> bytes:
    """A bool->float CAST that is a graph output, a CAST of a bool graph input, a comparison
    feeding LOGICAL_AND, and GATHER with INT64 indices."""
    m = IRModel(signature="serving_default")
    x, y, b = m.input("x", X), m.input("y", X), m.input("b", X, "BOOL")
    gathered = m.op("GATHER", [x, m.const("indices", np.array([0, 2], np.int64))], [1, 4, 4, 2],
                    options=options("Gather", axis=3))
    greater = m.op("GREATER", [x, y], X, "BOOL")
    cast_compare = m.op("CAST", [m.op("GREATER_EQUAL", [x, y], X, "BOOL")], X)
    cast_input = m.op("CAST", [b], X)
    both = m.op("LOGICAL_AND", [greater, b], X, "BOOL")
    m.output(cast_compare, cast_input, m.op("SELECT", [both, x, y], X, options=options("Select")), gathered)
    return m.bytes()


@builder("ops_misc_rejects")
def ops_misc_rejects() -> bytes:
    """Identical-input DIV (Parse failure)."""
    m = IRModel(signature="serving_default")
    x = m.input("x", X)
    m.output(_binary(m, "DIV", x, x))
    return m.bytes()


@builder("ops_broadcast")
def ops_broadcast() -> bytes:
    """ADD of a 4-D and a 3-D runtime input (allowed) and of a 4-D and a [4,8] input (refused)."""
    m = IRModel(signature="serving_default")
    x, y, z = m.input("x", X), m.input("y", [4, 4, 8]), m.input("z", [4, 8])
    m.output(_binary(m, "ADD", x, y), _binary(m, "ADD", x, z))
    return m.bytes()


@builder("ops_scalar")
def ops_scalar() -> bytes:
    """EXP of a 0-D runtime input: accepted at partitioning, refused at Parse."""
    return one_op("EXP", [])


@builder("ops_rank5")
def ops_rank5() -> bytes:
    """RELU on a 5-D tensor."""
    return one_op("RELU", [1, 2, 2, 2, 8])


@builder("ops_one_hot_axis0")
def ops_one_hot_axis0() -> bytes:
    """ONE_HOT along axis 0 (neither -1 nor the last indices size)."""
    m = IRModel(signature="serving_default")
    m.output(_one_hot(m, m.input("i", [1, 4], "INT32"), 0, [5, 1, 4]))
    return m.bytes()


@builder("ops_reverse_slice")
def ops_reverse_slice() -> bytes:
    """A strided slice with a negative stride (Parse failure) and one that shrinks an axis."""
    m = IRModel(signature="serving_default")
    x = m.input("x", X)
    zeros = m.const("zeros", np.zeros(4, np.int32))  # begin and end of the reversing slice

    def strided(begin: int, end: int, strides: list, shape: list, **masks) -> int:
        return m.op("STRIDED_SLICE", [x, begin, end, m.const(f"strides{len(m.graph.rec.operators)}",
                                                                 np.array(strides, np.int32))], shape,
                    options=options("StridedSlice", **masks))

    reversed_h = strided(zeros, zeros, [1, -1, 1, 1], X, beginMask=15, endMask=15)
    plus_one = _binary(m, "ADD", reversed_h, m.const("one", np.float32(1.0)))
    begin, end = m.const("begin", np.array([0, 1, 0, 0], np.int32)), m.const("end", np.array([0, 2, 4, 8], np.int32))
    shrunk = strided(begin, end, [1, 1, 1, 1], [1, 4, 8], beginMask=13, endMask=13, shrinkAxisMask=2)
    m.output(shrunk, plus_one)
    return m.bytes()


@builder("ops_prelu")
def ops_prelu() -> bytes:
    """PRELU with a per-channel alpha (accepted)."""
    return one_op("PRELU", X, np.abs(const([1, 1, 8], seed=5)))


@builder("ops_int8")
def ops_int8() -> bytes:
    """Full-integer CONV_2D with float I/O: QUANTIZE -> CONV_2D (int8, version 3, one weight scale
    per output channel, int32 bias) -> DEQUANTIZE (version 2), as the converter's recipe writes it."""
    m = IRModel(signature="serving_default")
    in_scale, w = 0.0286, const([1, 1, 8, 8], seed=6).transpose(3, 0, 1, 2)
    w_scales = np.abs(w).reshape(8, -1).max(axis=1) / 127
    q = m.op("QUANTIZE", [m.input("x", X)], X, "INT8", quantization=(in_scale, -4))
    weights = m.const("conv/w", np.round(w / w_scales[:, None, None, None]).astype(np.int8),
                      quantization=(list(w_scales), [0] * 8, 0))
    bias = m.const("conv/b", np.zeros(8, np.int32), quantization=(list(w_scales * in_scale), [0] * 8, 0))
    y = m.op("CONV_2D", [q, weights, bias], X, "INT8", options=conv_options(), version=3, quantization=(0.0455, -4))
    m.output(m.op("DEQUANTIZE", [y], X, version=2))
    return m.bytes()


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

