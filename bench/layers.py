"""Layer benchmark: MobileNetV2 0.35/128's layer shapes one at a time, each converted as a model of
its own, on each CPU OpenCL device against XNNPACK. Prints per layer: XNNPACK's invoke at 1 and 2
threads, the executor's kernel time (its profiling events, the input's layout kernel left out),
and the kernel time over XNNPACK's 2-thread invoke; then XNNPACK's invoke of a
model that does almost nothing (one ADD of 4 floats), its fixed cost per invoke, which a layer
alone pays and a layer inside a model does not.

Says where the whole model's gap to XNNPACK is: in the kernels (a layer's kernel slower than
XNNPACK's invoke of it) or between them (each launch's dispatch). Medians over `--runs`, the two
timed back to back in turns. Asserts nothing.

    python bench/layers.py [--runs 200] [--devices "Portable,Intel(R) OpenCL"] [--only depthwise,1x1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# (name, input HWC, layer): MobileNetV2 0.35/128's largest layers of each kind and a few small ones
LAYERS = [
    ("stem conv 3x3 s2, 3 -> 16", (128, 128, 3), ("conv", 16, 3, 2)),
    ("depthwise 3x3 s1, 64x64x16", (64, 64, 16), ("depthwise", None, 3, 1)),
    ("1x1, 64x64, 16 -> 8", (64, 64, 16), ("conv", 8, 1, 1)),
    ("1x1, 64x64, 8 -> 48", (64, 64, 8), ("conv", 48, 1, 1)),
    ("depthwise 3x3 s2, 64x64x48", (64, 64, 48), ("depthwise", None, 3, 2)),
    ("depthwise 3x3 s1, 32x32x48", (32, 32, 48), ("depthwise", None, 3, 1)),
    ("1x1, 32x32, 48 -> 8", (32, 32, 48), ("conv", 8, 1, 1)),
    ("depthwise 3x3 s1, 16x16x96", (16, 16, 96), ("depthwise", None, 3, 1)),
    ("1x1, 16x16, 96 -> 16", (16, 16, 96), ("conv", 16, 1, 1)),
    ("1x1, 8x8, 24 -> 144", (8, 8, 24), ("conv", 144, 1, 1)),
    ("depthwise 3x3 s1, 8x8x144", (8, 8, 144), ("depthwise", None, 3, 1)),
    ("1x1, 4x4, 112 -> 1280", (4, 4, 112), ("conv", 1280, 1, 1)),
    ("classifier 1280 -> 1000", (1280,), ("dense", 1000, None, None)),
]


def layer_model(shape: tuple[int, ...], layer: tuple) -> bytes:
    """One Keras layer (seeded weights) over an input of `shape`, converted to .tflite."""
    import tensorflow as tf

    tf.random.set_seed(0)
    kind, units, size, stride = layer
    L = tf.keras.layers
    make = {"conv": lambda: L.Conv2D(units, size, stride, padding="same"),
            "depthwise": lambda: L.DepthwiseConv2D(size, stride, padding="same"),
            "dense": lambda: L.Dense(units)}[kind]
    x = tf.keras.Input(shape, batch_size=1)
    return tf.lite.TFLiteConverter.from_keras_model(tf.keras.Model(x, make()(x))).convert()


def nothing_model() -> bytes:
    """One ADD of 4 floats: XNNPACK's invoke with next to no work."""
    import tensorflow as tf

    x = tf.keras.Input((4,), batch_size=1)
    return tf.lite.TFLiteConverter.from_keras_model(tf.keras.Model(x, x + 1.0)).convert()


def xnnpack_us(data: bytes, feed: np.ndarray, threads: int, runs: int) -> float:
    """Median invoke time of the reference interpreter (XNNPACK) with `threads` threads."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=data, num_threads=threads)
    it.allocate_tensors()
    index = it.get_input_details()[0]["index"]
    times = []
    for _ in range(runs):
        it.set_tensor(index, feed)
        t0 = time.perf_counter()
        it.invoke()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def executor_us(data: bytes, feed: np.ndarray, device: str, cache_dir: str, runs: int) -> float:
    """Median kernel time of the executor in fp32 on `device`: every launch but the input's layout
    (reindex). (A layer's whole run is mostly its input and output copied and laid out.)"""
    from executor import open_runner  # bench/executor.py (this script's folder is on sys.path)

    runner = open_runner(data, "fp32", cache_dir, device)
    for _ in range(10):
        runner.run([feed])
    trace = runner.runtime.trace
    trace.on = True
    kernels = []
    for _ in range(runs):
        trace.records.clear()
        runner.run([feed])
        kernels.append(sum(e.profile.end - e.profile.start for what, _, e in trace.records
                           if not what.startswith("kernel reindex.")) * 1e-9)
    trace.on = False
    return statistics.median(kernels) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--only", help="comma-separated parts of layer names to run (default all)")
    parser.add_argument("--devices", default="Portable,Intel(R) OpenCL",
                        help="comma-separated OpenCL device name parts (those not present are left out)")
    args = parser.parse_args()
    from gpucompat.opencl.device import all_devices, name_of

    present = [name_of(d) for d in all_devices()]
    devices = [spec for spec in args.devices.split(",") if any(spec.lower() in n.lower() for n in present)]
    work = tempfile.mkdtemp(prefix="gpucompat-layers-")
    gen = np.random.default_rng(0)
    nothing, four = nothing_model(), np.zeros((1, 4), np.float32)
    print(f"XNNPACK's invoke of one ADD of 4 floats: {xnnpack_us(nothing, four, 1, args.runs):.1f} us (1 thread), "
          f"{xnnpack_us(nothing, four, 2, args.runs):.1f} us (2 threads)")
    print(f"{'layer':<32}{'device':>10}{'xnn 1t us':>11}{'xnn 2t us':>11}{'kernel us':>11}{'kernel/xnn 2t':>15}")
    chosen = [entry for entry in LAYERS if not args.only or any(part in entry[0] for part in args.only.split(","))]
    for name, shape, layer in chosen:
        data = layer_model(shape, layer)
        feed = gen.standard_normal((1, *shape)).astype(np.float32)
        x1, x2 = xnnpack_us(data, feed, 1, args.runs), xnnpack_us(data, feed, 2, args.runs)
        for device in devices:
            kernel = executor_us(data, feed, device, os.path.join(work, device), args.runs)
            print(f"{name:<32}{device[:10]:>10}{x1:>11.1f}{x2:>11.1f}{kernel:>11.1f}{kernel / x2:>15.2f}", flush=True)


if __name__ == "__main__":
    main()
