"""Small float models used across the suite (IR, partitioning, CLI), written op by op with the IR
builder (tests/irbuild.py) as TensorFlow's converter writes them: same ops, options, shapes and
weights (the converter's OHWI conv and [out, in] dense layouts of modelgen.const's seeded values),
and a serving_default signature."""

import numpy as np

from irbuild import IRModel, conv_options, options
from modelgen import builder, const


@builder("conv_relu")
def conv_relu() -> bytes:
    """CONV_2D (fused RELU6) -> MEAN -> FULLY_CONNECTED: fully supported everywhere; with the
    min_runtime_version the converter records for these ops (tests/test_scale.py follows it)."""
    m = IRModel(signature="serving_default", metadata={"min_runtime_version": b"1.6.0"})
    x = m.input("x", [1, 16, 16, 3])
    w, fcw = const([3, 3, 3, 8]), const([8, 4], seed=1)
    conv = m.op("CONV_2D", [x, m.const("conv/w", w.transpose(3, 0, 1, 2)), m.const("conv/b", np.zeros(8, np.float32))],
                [1, 16, 16, 8], options=conv_options(activation="RELU6"))
    mean = m.op("MEAN", [conv, m.const("mean/axes", np.array([1, 2], np.int32))], [1, 8], options=options("Reducer"))
    m.output(m.op("FULLY_CONNECTED", [mean, m.const("fc/w", fcw.T.copy()), -1], [1, 4],
                  options=options("FullyConnected")))
    return m.bytes()


def conv_then_gather(m: IRModel, x: int, indices: list) -> int:
    """1x1 CONV_2D (fused RELU) of a [1, 4, 4, 4] input, then GATHER_ND of `indices` (rows of
    [batch, y]): the GPU island and the CPU op that cuts it."""
    w = const([1, 1, 4, 4])
    conv = m.op("CONV_2D", [x, m.const("conv/w", w.transpose(3, 0, 1, 2)), m.const("conv/b", np.zeros(4, np.float32))],
                [1, 4, 4, 4], options=conv_options(activation="RELU"))
    return m.op("GATHER_ND", [conv, m.const("gather/indices", np.array(indices, np.int32))], [len(indices), 4, 4])


@builder("gather_nd_island")
def gather_nd_island() -> bytes:
    """Two GPU islands split by GATHER_ND (unsupported by every profile): conv | GATHER_ND | MUL,
    ADD, TANH."""
    m = IRModel(signature="serving_default")
    g = conv_then_gather(m, m.input("x", [1, 4, 4, 4]), [[0, 1], [0, 2]])
    y = m.op("MUL", [g, m.const("two", np.float32(2.0))], [2, 4, 4], options=options("Mul"))
    y = m.op("ADD", [y, m.const("one", np.float32(1.0))], [2, 4, 4], options=options("Add"))
    m.output(m.op("TANH", [y], [2, 4, 4]))
    return m.bytes()


@builder("floor_transpose")
def floor_transpose() -> bytes:
    """FLOOR (no OpenCL kernel in the classic delegate) beside TRANSPOSE (no OpenGL kernel)."""
    m = IRModel(signature="serving_default")
    y = m.op("FLOOR", [m.input("x", [1, 4, 6, 8])], [1, 4, 6, 8])
    y = m.op("MUL", [y, m.const("two", np.float32(2.0))], [1, 4, 6, 8], options=options("Mul"))
    m.output(m.op("TRANSPOSE", [y, m.const("perm", np.array([0, 2, 1, 3], np.int32))], [1, 6, 4, 8]))
    return m.bytes()


def relu_gather_tanh(m: IRModel, x: int) -> int:
    """RELU -> GATHER_ND (rows [0, 1] and [0, 2]) -> TANH of a [1, 4, 4, 8] input."""
    y = m.op("RELU", [x], [1, 4, 4, 8])
    y = m.op("GATHER_ND", [y, m.const("gather/indices", np.array([[0, 1], [0, 2]], np.int32))], [2, 4, 8])
    return m.op("TANH", [y], [2, 4, 8])


@builder("partition_branches")
def partition_branches() -> bytes:
    """Two independent branches from one input: RELU -> GATHER_ND -> TANH, and SIN -> MUL."""
    m = IRModel(signature="serving_default")
    x = m.input("x", [1, 4, 4, 8])
    first = relu_gather_tanh(m, x)
    second = m.op("MUL", [m.op("SIN", [x], [1, 4, 4, 8]), m.const("three", np.float32(3.0))], [1, 4, 4, 8],
                  options=options("Mul"))
    m.output(second, first)
    return m.bytes()


@builder("partition_tie")
def partition_tie() -> bytes:
    """RELU -> GATHER_ND -> TANH: two one-node GPU islands."""
    m = IRModel(signature="serving_default")
    m.output(relu_gather_tanh(m, m.input("x", [1, 4, 4, 8])))
    return m.bytes()


def _two_convs_mean(m: IRModel, w1: int, w2: int, bias: int, second: str = "CONV_2D") -> None:
    """[1, 8, 8, 4] input -> 3x3 CONV_2D (RELU) to 8 channels -> `second` (a 3x3 CONV_2D, RELU) ->
    MEAN over H and W: the model output."""
    y = m.op("CONV_2D", [m.input("x", [1, 8, 8, 4]), w1, bias], [1, 8, 8, 8], options=conv_options(activation="RELU"))
    if second == "CONV_2D":
        y = m.op("CONV_2D", [y, w2, bias], [1, 8, 8, 8], options=conv_options(activation="RELU"))
    else:
        y = m.custom(second, [y, w2, bias], [1, 8, 8, 8])
    m.output(m.op("MEAN", [y, m.const("mean/axes", np.array([1, 2], np.int32))], [1, 8], options=options("Reducer")))


@builder("fp16_cnn")
def fp16_cnn() -> bytes:
    """fp16 weights as the converter's fp16 recipe writes them: three DEQUANTIZE (version 3) of
    FLOAT16 constants first in the plan, then CONV, CONV, MEAN."""
    m = IRModel(signature="serving_default")
    halves = [m.const(f"w{i}/fp16", v.astype(np.float16)) for i, v in
              enumerate((const([3, 3, 8, 8], seed=1).transpose(3, 0, 1, 2), np.zeros(8, np.float32),
                         const([3, 3, 4, 8]).transpose(3, 0, 1, 2)))]
    w2, bias, w1 = (m.op("DEQUANTIZE", [h], m.graph.rec.tensors[h].shape.tolist(), version=3) for h in halves)
    _two_convs_mean(m, w1, w2, bias)
    return m.bytes()


@builder("custom_op_cnn")
def custom_op_cnn() -> bytes:
    """CONV, a custom op "MyCustomOp" in the second conv's place, MEAN: LiteRT registers no such op."""
    m = IRModel(signature="serving_default")
    bias = m.const("bias", np.zeros(8, np.float32))
    _two_convs_mean(m, m.const("w1", const([3, 3, 4, 8]).transpose(3, 0, 1, 2)),
                    m.const("w2", const([3, 3, 8, 8], seed=1).transpose(3, 0, 1, 2)), bias, second="MyCustomOp")
    return m.bytes()
