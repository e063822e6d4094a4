"""Executor benchmark: latency of hybrid execution on the OpenCL executor against the reference
interpreter (XNNPACK, 1 and 2 threads) on generated MobileNet-class models at three input sizes,
RGB vs RGBA input, and init time with a cold vs a warm program cache. Prints ratios; asserts
nothing (timings depend on the machine).

    python bench/executor.py [--runs 20] [--precision fp32]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def mobilenet(size: int, channels: int) -> bytes:
    """A MobileNetV2 (alpha 0.35, random weights) converted to .tflite."""
    import tensorflow as tf

    tf.random.set_seed(0)
    net = tf.keras.applications.MobileNetV2(input_shape=(size, size, channels), alpha=0.35, weights=None)
    return tf.lite.TFLiteConverter.from_keras_model(net).convert()


def reference_ms(data: bytes, feeds: list[np.ndarray], threads: int, runs: int) -> float:
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=data, num_threads=threads)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    times = []
    for f in feeds[:runs]:
        it.set_tensor(d["index"], f)
        t0 = time.perf_counter()
        it.invoke()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def executor(data: bytes, precision: str, cache_dir: str):
    """(runner, init seconds, runtime) with the program cache in `cache_dir`."""
    from gpucompat import ir
    from gpucompat.opencl.hybrid import HybridRunner
    from gpucompat.verify.run import Settings, open_runtime, placements

    model = ir.from_bytes(data)
    runtime = open_runtime(Settings(precision=precision, cache_dir=cache_dir), data)
    runner = HybridRunner(model, placements(model, "gpu-current"), runtime)
    return runner, runner.init_s, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--sizes", default="96,128,160")
    args = parser.parse_args()
    print(f"{'model':<22}{'ref 1t ms':>10}{'ref 2t ms':>10}{'exec ms':>10}{'x 2t':>7}"
          f"{'cold s':>8}{'warm s':>8}{'warm/cold':>10}{'max err / max|ref|':>20}")
    for size in (int(s) for s in args.sizes.split(",")):
        for channels, tag in ((3, "RGB"), (4, "RGBA")):
            data = mobilenet(size, channels)
            gen = np.random.default_rng(0)
            feeds = [gen.standard_normal((1, size, size, channels)).astype(np.float32) for _ in range(args.runs)]
            r1, r2 = reference_ms(data, feeds, 1, args.runs), reference_ms(data, feeds, 2, args.runs)
            with tempfile.TemporaryDirectory() as cache:
                _, cold, _ = executor(data, args.precision, cache)
                runner, warm, model = executor(data, args.precision, cache)
            times, worst = [], 0.0
            from gpucompat.opencl.hybrid import reference_interpreter, run_reference

            ref_it = reference_interpreter(data, "reference")
            for f in feeds:
                t0 = time.perf_counter()
                got = runner.run([f])[0]
                times.append((time.perf_counter() - t0) * 1e3)
                want = run_reference(ref_it, [f])[0]
                worst = max(worst, float(np.abs(got - want).max() / np.abs(want).max()))
            ex = statistics.median(times)
            print(f"{'mobilenetv2-' + str(size) + '-' + tag:<22}{r1:>10.2f}{r2:>10.2f}{ex:>10.2f}{ex / r2:>7.1f}"
                  f"{cold:>8.2f}{warm:>8.2f}{warm / cold:>10.2f}{worst:>20.2e}")


if __name__ == "__main__":
    main()
