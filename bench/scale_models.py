"""The models of bench/scale.py, built in code with TensorFlow's converter.

- `weights(n)`: n FULLY_CONNECTED layers of 4096x4096 float32 weights, each followed by a TANH
  (n = 12: 805 MB, the size the issue measured; n = 34: 2.28 GB, past the flatbuffer's 2 GB limit,
  which the converter writes with its buffer-offset layout: weights after the flatbuffer);
- `chain(n)`: n ops alternating ADD (of a small constant) and TANH on a [1, 8] tensor.

The weights are made inside the graph (a sine of a range, which the converter folds into a constant), so
the GraphDef handed to the converter stays small whatever the model's size.

    python bench/scale_models.py KIND N OUT.tflite
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

WIDTH = 4096


def _convert(fn, shape, offset_buffers: bool) -> bytes:
    import tensorflow as tf

    concrete = tf.function(fn, input_signature=[tf.TensorSpec(shape, tf.float32)]).get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([concrete])
    # The converter switches to this layout by itself only when it has to; set it for > 2 GB.
    conv._experimental_use_buffer_offset = offset_buffers
    return conv.convert()


def weights(n: int) -> bytes:
    """n FULLY_CONNECTED 4096x4096 fp32 layers (+ TANH each)."""
    import tensorflow as tf

    def fn(x):
        for i in range(n):
            w = tf.sin(tf.reshape(tf.range(WIDTH * WIDTH, dtype=tf.float32), [WIDTH, WIDTH]) * (0.37 + i)) * 0.01
            x = tf.tanh(tf.matmul(x, w))
        return x

    return _convert(fn, [1, WIDTH], offset_buffers=n * WIDTH * WIDTH * 4 >= 2**31)


def chain(n: int) -> bytes:
    """n ops: ADD of a constant, then TANH, repeated."""
    import numpy as np
    import tensorflow as tf

    consts = [tf.constant(np.full([8], (i % 7 + 1) * 0.01, np.float32)) for i in range(n // 2 + 1)]

    def fn(x):
        for i in range(n):
            x = x + consts[i // 2] if i % 2 == 0 else tf.tanh(x)
        return x

    return _convert(fn, [1, 8], offset_buffers=False)


def main() -> None:
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = {"weights": weights, "chain": chain}[kind](n)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
