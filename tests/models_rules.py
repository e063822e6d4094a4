"""The smallest models that raise each rule code, and their healthy twins that do not: written op by
op with tests/irbuild.py (no converter), for tests/test_rule_codes.py and the family tests.

Each builder takes one flag, `raises`, and returns the model that raises its code (True) or the
twin that differs from it in the one thing the rule looks at (False)."""

from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from irbuild import IRModel, conv_options

SHAPE = [1, 4, 4, 8]


def unary(name: str, shape=SHAPE, options=None, dtype: str = "FLOAT32") -> IRModel:
    """`name`(x) of one model input."""
    m = IRModel()
    m.output(m.op(name, [m.input("x", shape, dtype)], shape, dtype, options=options))
    return m


def binary(name: str, same_input: bool) -> IRModel:
    """`name`(x, x) or `name`(x, y) of two model inputs."""
    m = IRModel()
    x = m.input("x", SHAPE)
    y = x if same_input else m.input("y", SHAPE)
    m.output(m.op(name, [x, y], SHAPE))
    return m


def with_constant(name: str, shape, constant: np.ndarray, out_shape, options=None) -> IRModel:
    """`name`(x, a constant) of one model input."""
    m = IRModel()
    x = m.input("x", shape)
    m.output(m.op(name, [x, m.const("c", constant)], out_shape, options=options))
    return m


def unsupported_between(raises: bool) -> IRModel:
    """TANH -> (GATHER_ND, which the delegate rejects, when `raises`; else LOGISTIC) -> TANH."""
    m = IRModel()
    x = m.op("TANH", [m.input("x", SHAPE)], SHAPE)
    if raises:
        x = m.op("GATHER_ND", [x, m.const("indices", np.zeros((1, 1), np.int32))], SHAPE)
    else:
        x = m.op("LOGISTIC", [x], SHAPE)
    m.output(m.op("TANH", [x], SHAPE))
    return m


def reshape_by(raises: bool) -> IRModel:
    """x reshaped to its own shape: computed at run time by SHAPE -> ADD (ADD does not fold at
    prepare, so the RESHAPE's output is dynamic), or given as a constant."""
    m = IRModel()
    x = m.input("x", SHAPE)
    if raises:
        s = m.op("SHAPE", [x], [4], "INT32", options=fb.ShapeOptionsT())
        s = m.op("ADD", [s, m.const("zero", np.zeros(4, np.int32))], [4], "INT32")
    else:
        s = m.const("shape", np.asarray(SHAPE, np.int32))
    m.output(m.op("TANH", [m.op("RESHAPE", [x, s], SHAPE)], SHAPE))
    return m


def fp16_weights(raises: bool) -> IRModel:
    """ADD of an input and weights: fp16 read through DEQUANTIZE, or float32."""
    m = IRModel()
    x = m.input("x", SHAPE)
    if raises:
        w = m.op("DEQUANTIZE", [m.const("w16", np.full(8, 0.5, np.float16))], [8])
    else:
        w = m.const("w", np.full(8, 0.5, np.float32))
    m.output(m.op("ADD", [x, w], SHAPE, options=fb.AddOptionsT()))
    return m


def sparse_weights(raises: bool) -> IRModel:
    """A 1x1 CONV_2D whose fp16 weights are read through DEQUANTIZE: stored sparse behind a DENSIFY
    (what XNNPACK unpacks without writing), or dense."""
    m = IRModel()
    w = np.zeros((4, 1, 1, 8), np.float16)
    w[np.arange(4), 0, 0, [1, 3, 5, 7]] = 0.5
    stored = m.op("DENSIFY", [m.sparse_const("w_sparse", w)], w.shape, "FLOAT16") if raises else m.const("w16", w)
    weights = m.op("DEQUANTIZE", [stored], w.shape)
    m.output(m.op("CONV_2D", [m.input("x", SHAPE), weights, m.const("b", np.zeros(4, np.float32))], [1, 4, 4, 4],
                  options=conv_options()))
    return m


def dead_branch(raises: bool) -> IRModel:
    """TANH(x), with a LOGISTIC nothing reads beside it, or reading it."""
    m = IRModel()
    x = m.input("x", SHAPE)
    y = m.op("LOGISTIC", [x], SHAPE)
    m.output(m.op("TANH", [x if raises else y], SHAPE))
    return m


def quantized_add(raises: bool) -> IRModel:
    """An ADD of an input and a constant, int8 with quantization parameters or float."""
    m = IRModel()
    dtype, q = ("INT8", (0.05, 0)) if raises else ("FLOAT32", None)
    x = m.input("x", SHAPE, dtype, quantization=q)
    c = m.const("c", np.ones(8, np.int8 if raises else np.float32), quantization=q)
    m.output(m.op("ADD", [x, c], SHAPE, dtype, quantization=q, options=fb.AddOptionsT()))
    return m


def residual_linear(raises: bool) -> IRModel:
    """x + FULLY_CONNECTED(x) on a rank-3 input, with int8 (weight-only quantized) or float weights."""
    m = IRModel()
    x = m.input("x", [1, 16, 32])
    w = np.ones((32, 32), np.int8 if raises else np.float32)
    wq = m.const("w", w, quantization=(0.02, 0) if raises else None)
    fc_options = fb.FullyConnectedOptionsT()
    fc_options.keepNumDims = True
    y = m.op("FULLY_CONNECTED", [x, wq, -1], [1, 16, 32], options=fc_options)
    m.output(m.op("ADD", [x, y], [1, 16, 32], options=fb.AddOptionsT()))
    return m


def depth_to_space(batch: int) -> IRModel:
    """DEPTH_TO_SPACE (block 2) of [batch, 8, 8, 16]."""
    m = IRModel()
    x = m.input("x", [batch, 8, 8, 16])
    options = fb.DepthToSpaceOptionsT()
    options.blockSize = 2
    m.output(m.op("DEPTH_TO_SPACE", [x], [batch, 16, 16, 4], options=options))
    return m


def attention(rank: int) -> IRModel:
    """SOFTMAX(BATCH_MATMUL(q, k) * scale) at rank 3 ([8, 16, 32]) or rank 4 ([1, 8, 16, 32])."""
    lead = [1] * (rank - 3)
    m = IRModel()
    q = m.input("q", [*lead, 8, 16, 32])
    k = m.input("k", [*lead, 8, 32, 16])
    s = m.op("BATCH_MATMUL", [q, k], [*lead, 8, 16, 16], options=fb.BatchMatMulOptionsT())
    s = m.op("MUL", [s, m.const("scale", np.float32(0.18))], [*lead, 8, 16, 16], options=fb.MulOptionsT())
    m.output(m.op("SOFTMAX", [s], [*lead, 8, 16, 16], options=softmax_options()))
    return m


def softmax_options() -> fb.SoftmaxOptionsT:
    """SOFTMAX with beta 1."""
    options = fb.SoftmaxOptionsT()
    options.beta = 1.0
    return options


def summed(height: int, name: str = "SUM") -> IRModel:
    """`name` (a reduction) over H and W of [1, height, height, 8]."""
    m = IRModel()
    x = m.input("x", [1, height, height, 8])
    options = fb.ReducerOptionsT()
    options.keepDims = False
    m.output(m.op(name, [x, m.const("axes", np.asarray([1, 2], np.int32))], [1, 8], options=options))
    return m


def squared(square: bool) -> IRModel:
    """MUL(x, x), a square, or MUL(x, 2)."""
    m = IRModel()
    x = m.input("x", SHAPE)
    y = x if square else m.const("two", np.full(8, 2.0, np.float32))
    m.output(m.op("MUL", [x, y], SHAPE, options=fb.MulOptionsT()))
    return m


def scaled(factor: float) -> IRModel:
    """MUL(x, factor)."""
    return with_constant("MUL", SHAPE, np.full(8, factor, np.float32), SHAPE, fb.MulOptionsT())


def sum_of_squares(raises: bool) -> IRModel:
    """MEAN over H and W of MUL(x, x) (a variance's sum of squares), or of x itself."""
    m = IRModel()
    x = m.input("x", SHAPE)
    y = m.op("MUL", [x, x], SHAPE, options=fb.MulOptionsT()) if raises else m.op("TANH", [x], SHAPE)
    options = fb.ReducerOptionsT()
    options.keepDims = False
    m.output(m.op("MEAN", [y, m.const("axes", np.asarray([1, 2], np.int32))], [1, 8], options=options))
    return m


def exp_of_logits(raises: bool) -> IRModel:
    """EXP(x), or EXP(x - REDUCE_MAX(x)) over the last axis as a softmax writes it."""
    m = IRModel()
    x = m.input("x", [1, 8])
    if not raises:
        options = fb.ReducerOptionsT()
        options.keepDims = True
        top = m.op("REDUCE_MAX", [x, m.const("axis", np.asarray([1], np.int32))], [1, 1], options=options)
        x = m.op("SUB", [x, top], [1, 8], options=fb.SubOptionsT())
    m.output(m.op("EXP", [x], [1, 8]))
    return m


def two_class_classifier(close: bool) -> IRModel:
    """SOFTMAX(FULLY_CONNECTED(x)) with two classes whose weights half rounds to the same value
    (1.0003 and 1.0004) or keeps apart (1 and 2)."""
    m = IRModel()
    x = m.input("x", [1, 1])
    w = np.asarray([[1.0003], [1.0004]] if close else [[1.0], [2.0]], np.float32)
    logits = m.op("FULLY_CONNECTED", [x, m.const("w", w), -1], [1, 2], options=fb.FullyConnectedOptionsT())
    m.output(m.op("SOFTMAX", [logits], [1, 2], options=softmax_options()))
    return m


def basic_lstm(units: int) -> IRModel:
    """An LSTM with the basic kernel (5 inputs, 4 outputs) of `units` units on a [1, 8] input."""
    m = IRModel()
    x = m.input("x", [1, 8])
    activ = m.input("activ", [1, units])
    state = m.input("state", [1, units])
    weights = m.const("weights", np.full((4 * units, 8 + units), 0.1, np.float32))
    biases = m.const("biases", np.zeros(4 * units, np.float32))
    outputs = [m.tensor("new_activ", [1, units]), m.tensor("new_state", [1, units]),
               m.tensor("concat_temp", [1, 8 + units]), m.tensor("activ_temp", [1, 4 * units])]
    options = fb.LSTMOptionsT()
    options.kernelType = fb.LSTMKernelType.BASIC
    options.fusedActivationFunction = fb.ActivationFunctionType.TANH
    m.graph.op("LSTM", [x, activ, weights, biases, state], outputs, options, 2)
    m.output(outputs[0], outputs[1])
    return m


def masked_attention(fill: float) -> IRModel:
    """Scores [1, 1, 32, 64] plus a mask SELECT_V2(keep [1, 1, 32, 64], 0, `fill`), then SOFTMAX: an
    attention mask as litert-torch builds it (-inf) or with a finite fill."""
    m = IRModel()
    scores = m.input("scores", [1, 1, 32, 64])
    keep = m.input("keep", [1, 1, 32, 64], "BOOL")
    mask = m.op("SELECT_V2", [keep, m.const("zero", np.float32(0)), m.const("fill", np.float32(fill))],
                [1, 1, 32, 64])
    added = m.op("ADD", [scores, mask], [1, 1, 32, 64], options=fb.AddOptionsT())
    m.output(m.op("SOFTMAX", [added], [1, 1, 32, 64], options=softmax_options()))
    return m
