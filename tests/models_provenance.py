"""Models whose operands come from somewhere other than a runtime tensor or a float32 constant, as
TensorFlow's converter writes them (issue 39): fp16 weights (every float constant stored FLOAT16
behind a DEQUANTIZE), dynamic-range and full-int8 weights. All names start with "prov_"."""

import numpy as np

from modelgen import builder, const, convert_fn, tf

X = [1, 6, 6, 8]


@builder("prov_select_fp16")
def _select_fp16() -> bytes:
    """`tf.where(x > 0, x, c)` with a full-shape constant c, fp16 weights: SELECT_V2 reading an fp16
    constant, the form LiteRT's accelerator computes as zeros on GPUs with fp16 shaders."""
    t, c = tf(), const(X, 1)
    return convert_fn(lambda x: t.where(x > 0.0, x, c) * 2.0, [(X, t.float32)], fp16=True)


@builder("prov_select_fp32")
def _select_fp32() -> bytes:
    """The same graph with float32 constants: the twin the accelerator computes right."""
    t, c = tf(), const(X, 1)
    return convert_fn(lambda x: t.where(x > 0.0, x, c) * 2.0, [(X, t.float32)])


@builder("prov_class_token_fp16")
def _class_token_fp16() -> bytes:
    """A ViT-style class token: a constant [1, 1, C] concatenated before [1, T, C] tokens, fp16
    weights (CONCATENATION with an fp16 constant piece), then a dense layer."""
    t, token, w = tf(), const([1, 1, 16], 2), const([16, 16], 3)
    return convert_fn(lambda x: t.matmul(t.concat([token, x], axis=1), w), [([1, 9, 16], t.float32)], fp16=True)


@builder("prov_shortcut_int8")
def _shortcut_int8() -> bytes:
    """A ResNet projection shortcut: a 1x1 convolution at stride 2 with dynamic-range int8 weights
    (64 -> 128 channels: enough weights for the converter to quantize), beside a stride-1 3x3 path."""
    t, w1, w3 = tf(), const([1, 1, 64, 128], 4, 0.1), const([3, 3, 64, 128], 5, 0.05)

    def block(x):
        return t.nn.relu(t.nn.conv2d(x, w1, 2, "SAME") + t.nn.conv2d(x, w3, 2, "SAME"))

    return convert_fn(block, [([1, 8, 8, 64], t.float32)], quantize="dynamic")


def feeds(shape, seed: int = 0) -> np.ndarray:
    """Seeded inputs of `shape` (about half of them negative)."""
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
