"""A model for verify's verdict (tests/test_verify_verdict.py): one of each op a deliberately
broken kernel is aimed at, in a chain, so that --localize has a first divergent op to name."""

from __future__ import annotations

import numpy as np

from modelgen import builder, const, convert_fn, tf


def _chain(x):
    t = tf()
    # CONV_2D 3x3 SAME, bias, fused RELU: padding, bias, weight layout and activation
    y = t.nn.relu(t.nn.bias_add(t.nn.conv2d(x, const([3, 3, 4, 8], seed=1), 1, "SAME"), const([8], seed=2)))
    # CONV_2D 3x3 with strides (2, 1): stride order
    y = t.nn.bias_add(t.nn.conv2d(y, const([3, 3, 8, 8], seed=3), [1, 2, 1, 1], "SAME"), const([8], seed=4))
    # SLICE of channels 2..5: channel offsets
    y = t.slice(y, [0, 0, 0, 2], [-1, -1, -1, 4])
    # ADD of a per-channel constant: broadcasting
    y = y + const([4], seed=5, scale=2.0)
    # RESIZE_BILINEAR to twice the size: resize mode
    return t.image.resize(y, [8, 16], method="bilinear")


@builder("verdict_kernels")
def verdict_kernels() -> bytes:
    """CONV_2D (bias, RELU), CONV_2D (strides 2, 1), SLICE, ADD (per-channel constant),
    RESIZE_BILINEAR, on a [1, 8, 8, 4] input."""
    return convert_fn(_chain, [([1, 8, 8, 4], np.float32)])


@builder("verdict_dynamic_range_conv")
def verdict_dynamic_range_conv() -> bytes:
    """Dynamic-range quantization of two convolutions large enough for the converter to store their
    weights in int8 (3x3x16x32, 3x3x32x16): hybrid CONV_2D ops, float activations."""
    t = tf()
    w1, w2 = const([3, 3, 16, 32], seed=6), const([3, 3, 32, 16], seed=7)

    def f(x):
        return t.nn.conv2d(t.nn.relu(t.nn.conv2d(x, w1, 1, "SAME")), w2, 1, "SAME")

    return convert_fn(f, [([1, 8, 8, 16], np.float32)], quantize="dynamic")


@builder("verdict_fp16_flip")
def verdict_fp16_flip() -> bytes:
    """A two-class classifier (FULLY_CONNECTED logits, SOFTMAX) whose top class fp16 flips on an
    input of 1, within the fp16 tolerance: the logits are 1.0003 x and x + 0.0004, so class 1 wins
    by 1e-4 in fp32, while in half 1.0003 rounds to 1 and so does 1.0004 (half's spacing there is
    1e-3): the probabilities tie at 0.5 and the first class, 0, is the top one."""
    t = tf()
    w, b = np.array([[1.0003, 1.0]], np.float32), np.array([0.0, 0.0004], np.float32)
    return convert_fn(lambda x: t.nn.softmax(t.matmul(x, w) + b), [([1, 1], np.float32)])


FLIP_INPUT = np.array([[1.0]], np.float32)  # the input on which fp16 flips verdict_fp16_flip's class
