"""Executor benchmark: latency of hybrid execution on the OpenCL executor against the reference
interpreter (XNNPACK, 1 and 2 threads) on generated MobileNet-class models at three input sizes,
RGB vs RGBA input (or on given .tflite files), and init time with a cold vs a warm start, on each
of the machine's CPU OpenCL devices side by side (PoCL, Intel's CPU runtime); then, per model and
device, the summed kernel time by kernel family from OpenCL profiling events (the fastest of the
runs for each launch). Prints ratios; asserts nothing (timings depend on the machine and on what
else runs on it). On a shared machine the paired columns are the ones to compare: "cpu x 2t" (process
CPU time per run over the 2-thread reference's) and "pair x 2t" (median wall ratio of a reference
invoke and an executor run timed back to back), each pair under the same load.

Init is measured in fresh processes. Cold: an empty gpucompat program cache and an empty PoCL
kernel cache (POCL_CACHE_DIR pointed at a new directory: PoCL keeps its own compiled work-group
functions there, which would otherwise make a "cold" start partly warm). Warm: a second process
with both caches as the cold one left them.

    python bench/executor.py [--runs 20] [--precision fp32] [--sizes 96,128,160] [--alpha 0.35]
                             [--inputs RGB,RGBA] [--devices "Portable,Intel(R) OpenCL"]
    python bench/executor.py --alpha 1.0 --sizes 224 --inputs RGB   # where kernel efficiency dominates
    python bench/executor.py --models a.tflite,b.tflite             # real models (one input each)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def mobilenet(size: int, channels: int, alpha: float) -> bytes:
    """A MobileNetV2 (width `alpha`, random weights, logits out) converted to .tflite. Logits rather
    than softmax: with random weights the softmax is flat and hides any error."""
    import tensorflow as tf

    tf.random.set_seed(0)
    net = tf.keras.applications.MobileNetV2(input_shape=(size, size, channels), alpha=alpha, weights=None,
                                            classifier_activation=None)
    return tf.lite.TFLiteConverter.from_keras_model(net).convert()


def reference_ms(data: bytes, feeds: list[np.ndarray], threads: int) -> float:
    """Median invoke time of the reference interpreter (XNNPACK) with `threads` threads."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=data, num_threads=threads)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    times = []
    for f in feeds:
        it.set_tensor(d["index"], f)
        t0 = time.perf_counter()
        it.invoke()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def open_runner(data: bytes, precision: str, cache_dir: str, device: str):
    """A HybridRunner placed by the gpu-current profile on OpenCL device `device` (a name part),
    programs cached in `cache_dir`."""
    from gpucompat import ir
    from gpucompat.verification.hybrid import HybridRunner, open_runtime
    from gpucompat.verification.placements import placements
    from gpucompat.verification.session import Settings

    model = ir.from_bytes(data)
    runtime = open_runtime(Settings(precision=precision, cache_dir=cache_dir, device=device), data)
    return HybridRunner(model, placements(model, "gpu-current"), runtime)


def init_seconds(path: str, precision: str, cache_dir: str, pocl_dir: str, device: str) -> float:
    """The runner's init time in a fresh process with the given caches."""
    env = dict(os.environ, POCL_CACHE_DIR=pocl_dir)
    out = subprocess.run([sys.executable, __file__, "--init-child", path, "--precision", precision,
                          "--cache-dir", cache_dir, "--devices", device], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1])


def executor_ms(data: bytes, feeds: list[np.ndarray], precision: str, cache_dir: str, device: str
                ) -> tuple[float, float, dict[str, float], tuple[float, float]]:
    """(median run time in ms, worst max|error| / max|ref| over the runs, kernel ms by family,
    paired ratios against the 2-thread reference: see paired_ratios)."""
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    runner = open_runner(data, precision, cache_dir, device)
    times, outputs = [], []
    for f in feeds:  # back to back, as reference_ms times the interpreter (no other work in between)
        t0 = time.perf_counter()
        outputs.append(runner.run([f])[0])
        times.append((time.perf_counter() - t0) * 1e3)
    ref_it = reference_interpreter(data, "reference")
    worst = max(float(np.abs(got - want).max() / np.abs(want).max())
                for got, want in ((got, run_reference(ref_it, [f])[0]) for got, f in zip(outputs, feeds)))
    return statistics.median(times), worst, kernel_ms(runner, feeds[:5]), paired_ratios(data, runner, feeds)


def paired_ratios(data: bytes, runner, feeds: list[np.ndarray]) -> tuple[float, float]:
    """(median process CPU time of a run / the 2-thread reference's, median of the per-pair wall
    time ratios), each executor run timed right after one reference invoke on the same input, so
    both see the same load on a shared machine (CPU time, all threads, moves least with it)."""
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_content=data, num_threads=2)
    it.allocate_tensors()
    index = it.get_input_details()[0]["index"]
    cpu_ref, cpu_ex, walls = [], [], []
    for f in feeds:
        it.set_tensor(index, f)
        c0, t0 = time.process_time(), time.perf_counter()
        it.invoke()
        c1, t1 = time.process_time(), time.perf_counter()
        runner.run([f])
        cpu_ref.append(c1 - c0)
        cpu_ex.append(time.process_time() - c1)
        walls.append((time.perf_counter() - t1) / (t1 - t0))
    return statistics.median(cpu_ex) / statistics.median(cpu_ref), statistics.median(walls)


def kernel_ms(runner, feeds: list[np.ndarray]) -> dict[str, float]:
    """Kernel time by kernel ("conv.pointwise_conv2d (34)": ms, with the number of launches) from
    profiling events, each launch counted at its fastest over `feeds` (the least disturbed by other
    work on the machine)."""
    trace = runner.runtime.trace
    fastest: dict[int, tuple[str, float]] = {}
    trace.on = True
    for f in feeds:
        trace.records.clear()
        runner.run([f])
        for i, (what, _, event) in enumerate(trace.records):
            ms = (event.profile.end - event.profile.start) * 1e-6
            fastest[i] = (what, min(ms, fastest.get(i, (what, ms))[1]))
    trace.on = False
    by_family: dict[str, list] = {}
    for what, ms in fastest.values():
        total = by_family.setdefault(what.removeprefix("kernel "), [0.0, 0])
        total[0] += ms
        total[1] += 1
    return {f"{k} ({n})": ms for k, (ms, n) in sorted(by_family.items(), key=lambda kv: -kv[1][0])}


def read(path: str) -> bytes:
    """A file's bytes."""
    with open(path, "rb") as f:
        return f.read()


def generated_models(args) -> list[tuple[str, bytes]]:
    """The MobileNetV2s the size, input and alpha options ask for, by name."""
    found = []
    for size in (int(s) for s in args.sizes.split(",")):
        for tag in args.inputs.split(","):
            data = mobilenet(size, {"RGB": 3, "RGBA": 4}[tag], args.alpha)
            found.append((f"mobilenetv2-{args.alpha:g}-{size}-{tag}", data))
    return found


def random_feeds(data: bytes, runs: int) -> list[np.ndarray]:
    """`runs` seeded inputs for the model's one input (float: standard normal, integer: its range)."""
    from ai_edge_litert.interpreter import Interpreter

    d = Interpreter(model_content=data).get_input_details()[0]
    gen, dtype = np.random.default_rng(0), np.dtype(d["dtype"])
    if dtype.kind == "f":
        return [gen.standard_normal(d["shape"]).astype(dtype) for _ in range(runs)]
    info = np.iinfo(dtype)
    return [gen.integers(info.min, info.max, d["shape"], dtype=dtype, endpoint=True) for _ in range(runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--sizes", default="96,128,160")
    parser.add_argument("--alpha", type=float, default=0.35, help="MobileNetV2 width multiplier")
    parser.add_argument("--inputs", default="RGB,RGBA", help="input channel layouts to run (RGB, RGBA)")
    parser.add_argument("--models", help="comma-separated .tflite files to run instead of the MobileNetV2s")
    parser.add_argument("--devices", default="Portable,Intel(R) OpenCL",
                        help="comma-separated OpenCL device name parts, each timed (those not present are left out)")
    parser.add_argument("--cache-dir")
    parser.add_argument("--init-child")
    args = parser.parse_args()
    if args.init_child:
        with open(args.init_child, "rb") as f:
            print(open_runner(f.read(), args.precision, args.cache_dir, args.devices).init_s)
        return
    work = tempfile.mkdtemp(prefix="gpucompat-bench-")
    os.environ["POCL_CACHE_DIR"] = os.path.join(work, "pocl-main")  # before PyOpenCL loads PoCL
    from gpucompat.opencl.device import all_devices, name_of

    present = [name_of(d) for d in all_devices()]
    devices = [spec for spec in args.devices.split(",") if any(spec.lower() in n.lower() for n in present)]
    print(f"devices: {', '.join(devices)} of {'; '.join(present)}")
    models = [(os.path.basename(p).removesuffix(".tflite"), read(p)) for p in args.models.split(",")] if args.models \
        else generated_models(args)
    print(f"{'model':<40}{'device':>10}{'ref 1t ms':>10}{'ref 2t ms':>10}{'exec ms':>10}{'x 1t':>7}{'x 2t':>7}"
          f"{'cpu x 2t':>9}{'pair x 2t':>10}{'cold s':>8}{'warm s':>8}{'warm/cold':>10}{'max err / max|ref|':>20}")
    profiles = {}
    for name, data in models:
        path = os.path.join(work, f"{name}.tflite")
        with open(path, "wb") as f:
            f.write(data)
        feeds = random_feeds(data, args.runs)
        r1, r2 = reference_ms(data, feeds, 1), reference_ms(data, feeds, 2)
        for device in devices:
            cache, pocl = os.path.join(work, name, device, "programs"), os.path.join(work, name, device, "pocl")
            cold = init_seconds(path, args.precision, cache, pocl, device)
            warm = init_seconds(path, args.precision, cache, pocl, device)
            ex, worst, profiles[(name, device)], (cpu, pair) = executor_ms(data, feeds, args.precision, cache,
                                                                          device)
            print(f"{name:<40}{device:>10}{r1:>10.2f}{r2:>10.2f}{ex:>10.2f}{ex / r1:>7.1f}{ex / r2:>7.1f}"
                  f"{cpu:>9.2f}{pair:>10.2f}{cold:>8.2f}{warm:>8.2f}{warm / cold:>10.2f}{worst:>20.2e}", flush=True)
    print("\nkernel time by family (ms, each launch at its fastest of 5 runs)")
    for (name, device), families in profiles.items():
        total = sum(families.values())
        kernels = ", ".join(f"{k} {v:.2f}" for k, v in families.items())
        print(f"{name} on {device}: {total:.2f} ms in kernels: {kernels}")


if __name__ == "__main__":
    main()
