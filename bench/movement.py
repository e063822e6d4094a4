"""Data-movement benchmark: load time, peak memory during load and kernel time of big PAD /
TRANSPOSE / CONCATENATION models on the OpenCL executor, for this tree and for a baseline commit
(default: the last one before opencl/copy.cl was deleted, when data movement ran through
per-element index maps), printed side by side with the ratios. Asserts nothing (timings depend on the machine).

Each figure comes from a fresh process that loads the model twice with the same program caches
(gpucompat's and PoCL's), so the measured load is the second one: lowering, uploads, cached
programs, no compiler. Peak memory is the process's resident high-water mark over that load,
minus its resident size before it. Kernel time is the sum of the OpenCL profiling events of one
run (median over the runs).

    python bench/movement.py [--baseline REV] [--size 512] [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np
from checkout_tree import importable_tree

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def models(size: int) -> dict[str, bytes]:
    """The benchmark models: [1, size, size, 32] padded by 1 pixel, transposed (H <-> W) and
    concatenated on channels from two halves of 16."""
    import tensorflow as tf

    def convert(fn, shapes):
        specs = [tf.TensorSpec(s, tf.float32) for s in shapes]
        concrete = tf.function(fn, input_signature=specs).get_concrete_function()
        return tf.lite.TFLiteConverter.from_concrete_functions([concrete]).convert()

    big, half = [1, size, size, 32], [1, size, size, 16]
    return {
        "pad": convert(lambda x: tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]]), [big]),
        "transpose": convert(lambda x: tf.transpose(x, [0, 2, 1, 3]), [big]),
        "concat": convert(lambda a, b: tf.concat([a, b], 3), [half, half]),
    }


def _kib(field: str) -> int:
    """A /proc/self/status memory figure in KiB (VmRSS now, VmHWM the high-water mark)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def child(path: str, runs: int, cache_dir: str) -> dict:
    """Measure one model with the gpucompat importable here (this process)."""
    from gpucompat import ir
    from gpucompat.opencl import device
    from gpucompat.opencl.ops import movement
    from gpucompat.verification.hybrid import HybridRunner, open_runtime
    from gpucompat.verification.session import Settings

    with open(path, "rb") as f:
        data = f.read()
    model = ir.from_bytes(data)
    gen = np.random.default_rng(0)
    feeds = [gen.standard_normal(t.shape).astype(np.float32) for t in model.graphs[0].inputs]

    def load():
        runtime = open_runtime(Settings(cache_dir=cache_dir), data)
        return HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtime)

    load()  # builds or loads the programs (dropped at once): not what is measured
    before = _kib("VmRSS")
    t0 = time.perf_counter()
    runner = load()
    load_s = time.perf_counter() - t0
    peak_mb = (_kib("VmHWM") - before) / 1024
    pcl = device.cl()
    events, enqueue = [], pcl.enqueue_nd_range_kernel
    pcl.enqueue_nd_range_kernel = lambda *a, **k: events.append(enqueue(*a, **k)) or events[-1]
    kernel_ms, run_ms = [], []
    for _ in range(runs):
        events.clear()
        t0 = time.perf_counter()
        runner.run(feeds)
        run_ms.append((time.perf_counter() - t0) * 1e3)
        kernel_ms.append(sum(e.profile.end - e.profile.start for e in events) / 1e6)
    return {"load_s": load_s, "peak_mb": peak_mb, "kernel_ms": statistics.median(kernel_ms),
            "run_ms": statistics.median(run_ms), "launches": len(events), "source": movement.__file__}


def index_map_commit() -> str:
    """The last commit with opencl/copy.cl (the index-map executor): the parent of the commit that
    deleted it, or HEAD while that deletion is not committed."""
    out = subprocess.run(["git", "-C", HERE, "log", "-1", "--diff-filter=D", "--format=%H", "--", "opencl/copy.cl"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return f"{out}^" if out else "HEAD"


def baseline_tree(commit: str, work: str) -> str:
    """The package at `commit`, laid out importable (bench/checkout_tree.py)."""
    root = os.path.join(work, "baseline")
    archive = os.path.join(work, "baseline.tar")
    subprocess.run(["git", "-C", HERE, "archive", "-o", archive, commit], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(root, filter="data")
    return importable_tree(root, os.path.join(work, "tree"))


def measure(tree: str | None, path: str, runs: int, cache_dir: str) -> dict:
    """`child` in a fresh process importing gpucompat from `tree` (None: the installed one)."""
    env = dict(os.environ, POCL_CACHE_DIR=os.path.join(cache_dir, "pocl"))
    if tree:
        env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", path, "--runs", str(runs), "--cache-dir", cache_dir],
                         env=env, capture_output=True, text=True, check=True, cwd=tree or HERE)
    return json.loads(out.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="commit to compare with (default: the last with index maps)")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--child")
    parser.add_argument("--cache-dir")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.runs, args.cache_dir)))
        return
    work = tempfile.mkdtemp(prefix="gpucompat-bench-movement-")
    trees = {"before": baseline_tree(args.baseline or index_map_commit(), work), "after": None}
    print(f"{'model':<10}{'':>7}{'load s':>9}{'peak MB':>9}{'kernel ms':>11}{'run ms':>9}{'launches':>10}")
    for name, data in models(args.size).items():
        path = os.path.join(work, f"{name}.tflite")
        with open(path, "wb") as f:
            f.write(data)
        got = {k: measure(tree, path, args.runs, os.path.join(work, k, name)) for k, tree in trees.items()}
        for k, m in got.items():
            print(f"# {name} {k}: {m['source']}", file=sys.stderr)
            print(f"{name:<10}{k:>7}{m['load_s']:>9.3f}{m['peak_mb']:>9.1f}{m['kernel_ms']:>11.2f}{m['run_ms']:>9.2f}"
                  f"{m['launches']:>10}")
        b, a = got["before"], got["after"]
        print(f"{name:<10}{'ratio':>7}{a['load_s'] / b['load_s']:>9.3f}{a['peak_mb'] / max(b['peak_mb'], 0.1):>9.3f}"
              f"{a['kernel_ms'] / b['kernel_ms']:>11.3f}{a['run_ms'] / b['run_ms']:>9.3f}")


if __name__ == "__main__":
    main()
