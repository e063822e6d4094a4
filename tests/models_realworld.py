"""The kinds of model users ship: fp16 weights, sparse weights, dynamic-range and full int8
quantization, control flow, a custom op, dynamic batch. One builder each, all small.

Shared body: CONV(4->8)+RELU -> CONV(8->8)+RELU -> MEAN over H, W (3 ops in float)."""

import numpy as np

from gpucompat import ir
from gpucompat.ir import opcodes
from gpucompat.ir.nodes import OpCode
from modelgen import builder, const, convert_fn, tf

_W1, _W2, _FC = const([3, 3, 4, 8]), const([3, 3, 8, 8], seed=1), const([8, 8], seed=3)
_X = ([1, 8, 8, 4], np.float32)


def _cnn(x):
    t = tf()
    y = t.nn.relu(t.nn.conv2d(x, _W1, 1, "SAME"))
    y = t.nn.relu(t.nn.conv2d(y, _W2, 1, "SAME"))
    return t.reduce_mean(y, [1, 2])


def _cnn_gather_nd(x):
    """CONV+RELU | GATHER_ND | FULLY_CONNECTED -> TANH: two GPU islands of 1 and 2 ops."""
    t = tf()
    y = t.nn.relu(t.nn.conv2d(x, _W1, 1, "SAME"))
    y = t.gather_nd(y, [[0, 1], [0, 2]])
    return t.tanh(t.matmul(y, _FC))


def _sparse_matrix() -> np.ndarray:
    w = const([64, 64], seed=4)
    w[np.random.default_rng(5).random(w.shape) < 0.9] = 0  # 90 % zeros: the converter keeps it sparse
    return w


@builder("rw_float_cnn")
def float_cnn() -> bytes:
    """CONV, CONV, MEAN: fully delegated everywhere."""
    return convert_fn(_cnn, [_X])


@builder("rw_fp16_cnn")
def fp16_cnn() -> bytes:
    """fp16 weights: 3 DEQUANTIZE(fp16 const) + CONV, CONV, MEAN (FP16 full-delegation override)."""
    return convert_fn(_cnn, [_X], fp16=True)


@builder("rw_fp16_partial")
def fp16_partial() -> bytes:
    """fp16 weights with GATHER_ND in the middle: the DEQUANTIZEs stay on the CPU."""
    return convert_fn(_cnn_gather_nd, [([1, 4, 4, 4], np.float32)], fp16=True)


@builder("rw_sparse_fc")
def sparse_fc() -> bytes:
    """DENSIFY(sparse const) -> FULLY_CONNECTED (+RELU fused)."""
    t = tf()
    w = _sparse_matrix()
    return convert_fn(lambda x: t.nn.relu(t.matmul(x, w)), [([1, 64], np.float32)], sparse=True)


@builder("rw_sparse_fp16_fc")
def sparse_fp16_fc() -> bytes:
    """DENSIFY(sparse fp16 const) -> DEQUANTIZE -> FULLY_CONNECTED."""
    t = tf()
    w = _sparse_matrix()

    class Module(t.Module):
        @t.function(input_signature=[t.TensorSpec([1, 64], t.float32)])
        def __call__(self, x):
            return t.nn.relu(t.matmul(x, w))

    m = Module()
    conv = t.lite.TFLiteConverter.from_concrete_functions([m.__call__.get_concrete_function()], m)
    conv.optimizations = [t.lite.Optimize.DEFAULT, t.lite.Optimize.EXPERIMENTAL_SPARSITY]
    conv.target_spec.supported_types = [t.float16]
    return conv.convert()


@builder("rw_dynamic_range_fc")
def dynamic_range_fc() -> bytes:
    """Dynamic-range quantization: int8 64x64 weights, float activations: one hybrid
    FULLY_CONNECTED (version 12; small weights would be left in float by the converter)."""
    t = tf()
    w = const([64, 64], seed=6)
    return convert_fn(lambda x: t.nn.relu(t.matmul(x, w)), [([1, 64], np.float32)], quantize="dynamic")


@builder("rw_int8_cnn")
def int8_cnn() -> bytes:
    """Full int8 with float I/O: QUANTIZE, CONV, CONV, MEAN, DEQUANTIZE."""
    return convert_fn(_cnn, [_X], quantize="int8")


@builder("rw_int8_io_cnn")
def int8_io_cnn() -> bytes:
    """Full int8 with int8 inputs and outputs: CONV, CONV, MEAN."""
    return convert_fn(_cnn, [_X], quantize="int8-io")


@builder("rw_int8_gather_nd")
def int8_gather_nd() -> bytes:
    """Full int8: QUANTIZE, CONV | GATHER_ND | FULLY_CONNECTED, TANH, DEQUANTIZE."""
    return convert_fn(_cnn_gather_nd, [([1, 4, 4, 4], np.float32)], quantize="int8")


@builder("rw_while")
def while_loop() -> bytes:
    """WHILE (subgraph 0: WHILE, TANH) with cond LESS (1) and body ADD, MUL, ADD (2)."""
    t = tf()

    def f(x):
        def body(i, y):
            return i + 1, t.nn.relu(y * 0.5 + 1.0)

        _, y = t.while_loop(lambda i, y: i < 3, body, [t.constant(0), x])
        return t.tanh(y)

    return convert_fn(f, [([1, 4, 4, 8], np.float32)])


@builder("rw_if")
def if_cond() -> bytes:
    """IF (subgraph 0: STRIDED_SLICE with shrink mask, GREATER, IF) with two 2-op branches."""
    t = tf()

    def f(x, p):
        return t.cond(p[0] > 0.0, lambda: t.nn.relu(x) * 2.0, lambda: t.tanh(x) - 1.0)

    return convert_fn(f, [([1, 4, 4, 8], np.float32), ([1], np.float32)])


@builder("rw_while_body_dynamic")
def while_body_dynamic() -> bytes:
    """A WHILE whose body has a WHERE (data-dependent shape): a dynamic tensor inside the loop."""
    t = tf()

    def f(x):
        def body(i, y):
            return i + 1, y * 0.5 + t.reduce_sum(t.gather_nd(y, t.where(y > 0.0)))

        _, y = t.while_loop(lambda i, y: i < 3, body, [t.constant(0), t.nn.relu(x)])
        return t.tanh(y)

    return convert_fn(f, [([2, 3], np.float32)])


@builder("rw_custom_op")
def custom_op() -> bytes:
    """The float CNN with its second CONV renamed to a custom op "MyCustomOp" (object API edit)."""
    model = ir.from_bytes(float_cnn())
    op = model.graphs[0].ops[1]
    op.code = OpCode(opcodes.CUSTOM, "MyCustomOp", 1)
    op.fb.builtinOptions, op.fb.builtinOptionsType = None, 0
    return ir.to_bytes(model)


@builder("rw_dynamic_batch")
def dynamic_batch() -> bytes:
    """[None, 8, 8, 4] input, RESHAPE to [-1, 512] with a constant shape, FULLY_CONNECTED."""
    t = tf()
    w = const([512, 4], seed=2)

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, _W1, 1, "SAME"))
        return t.matmul(t.reshape(y, [-1, 512]), w)

    return convert_fn(f, [([None, 8, 8, 4], np.float32)])


@builder("rw_dynamic_batch_shape_pack")
def dynamic_batch_shape_pack() -> bytes:
    """SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE: PACK does not fold at prepare, RESHAPE is dynamic."""
    t = tf()

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, _W1, 1, "SAME"))
        return t.reshape(y, t.stack([t.shape(x)[0], -1]))

    return convert_fn(f, [([None, 8, 8, 4], np.float32)])


@builder("rw_dynamic_batch_shape_concat")
def dynamic_batch_shape_concat() -> bytes:
    """SHAPE -> STRIDED_SLICE -> CONCATENATION -> RESHAPE: all fold at prepare, nothing dynamic;
    the RESHAPE reads a non-constant shape, which the GPU refuses."""
    t = tf()

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, _W1, 1, "SAME"))
        return t.reshape(y, t.concat([t.shape(x)[:1], [-1]], 0))

    return convert_fn(f, [([None, 8, 8, 4], np.float32)])
