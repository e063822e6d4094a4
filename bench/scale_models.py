"""The models of bench/scale.py, built in code with TensorFlow's converter.

- `weights(n)`: n FULLY_CONNECTED layers of 4096x4096 float32 weights, each followed by a TANH
  (n = 12: 805 MB, the size the issue measured), and a MIRROR_PAD for `fix` to rewrite;
- `repeated(...)`: that model's layers three times over, 2.4 GB, past the flatbuffer's 2 GB limit
  (weights after the flatbuffer: the converter's buffer-offset layout);
- `chain(n)`: n ops alternating ADD (of a small constant) and TANH on a [1, 8] tensor.

The weights are made inside the graph (a sine of a range, which the converter folds into a constant), so
the GraphDef handed to the converter stays small whatever the model's size.

    python bench/scale_models.py KIND N OUT.tflite
    python bench/scale_models.py repeat TIMES SRC.tflite OUT.tflite
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


def weights(n: int, width: int = WIDTH) -> bytes:
    """n FULLY_CONNECTED width x width fp32 layers (+ TANH each), then a symmetric pad (a
    MIRROR_PAD the GPU delegate rejects and `fix` rewrites, so `fix` has something to write)."""
    import tensorflow as tf

    def fn(x):
        for i in range(n):
            w = tf.sin(tf.reshape(tf.range(width * width, dtype=tf.float32), [width, width]) * (0.37 + i)) * 0.01
            x = tf.tanh(tf.matmul(x, w))
        return tf.pad(tf.reshape(x, [1, 1, width, 1]), [[0, 0], [0, 0], [2, 2], [0, 0]], mode="SYMMETRIC")

    return _convert(fn, [1, width], offset_buffers=n * width * width * 4 >= 2**31)


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


def repeated(src: str, out: str, times: int) -> None:
    """The model at `src` (a `weights` model) with its FULLY_CONNECTED / TANH layers run `times`
    times over, each repeat with constants of its own (the same values in distinct buffers): past
    2 GB from the converter's 805 MB model. Written by gpucompat's writer, which takes the
    converter's offset layout past 2 GB (the converter itself needs about six times a model's size
    in memory, 13 GB here)."""
    import copy

    from gpucompat import ir
    from gpucompat.ir import build

    model = ir.load(src)
    g = model.graphs[0]
    layers = [op for op in g.ops if op.name in ("FULLY_CONNECTED", "TANH")]
    last = x = layers[-1].outputs[0]
    after = last.consumers[0]
    for k in range(1, times):
        for op in layers:
            consts = [_own_copy(model, g, t) if t is not None else None for t in op.inputs[1:]]
            y = build.tensor(g, f"{op.outputs[0].name}/repeat{k}", op.outputs[0].shape, op.outputs[0].dtype)
            new = build.operator(g, op.name, [x, *consts], [y], copy.copy(op.options), op.version)
            g.insert_op(g.op_index(after), new)
            x = y
    after.inputs = [x if t is last else t for t in after.inputs]
    g.link()
    ir.save(model, out)


def _own_copy(model, g, t):
    """A new constant tensor like `t` whose buffer holds the same bytes (a view of the file)."""
    import copy

    from ai_edge_litert import schema_py_generated as fb

    rec = copy.copy(t.fb)
    buf = fb.BufferT()
    buf.data = t.buffer.data
    model.fb.buffers.append(buf)
    rec.buffer = len(model.fb.buffers) - 1
    return g.add_tensor(rec)


def main() -> None:
    if sys.argv[1] == "repeat":
        repeated(sys.argv[3], sys.argv[4], int(sys.argv[2]))
        return
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = {"weights": weights, "chain": chain, "small-weights": lambda k: weights(k, 64)}[kind](n)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
