"""Benchmark: whole-process `gpucompat check` vs TensorFlow's Analyzer on the same models.

    python bench/check_speed.py [--runs 7]

Builds (once, into bench/.cache/) a MobileNetV2-style model of about 330 ops and 6 MB of float
weights, plus a small model with a GATHER_ND, then times each tool as a fresh process (what a user
or a pre-commit hook pays) and prints medians, peak memory and the ratio. Needs TensorFlow (the
`dev` extra); gpucompat itself never imports it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
ANALYZER = ("import sys, tensorflow as tf; "
            "tf.lite.experimental.Analyzer.analyze(model_path=sys.argv[1], gpu_compatibility=True)")


def build_models() -> dict[str, str]:
    """Convert the benchmark models unless they are cached."""
    os.makedirs(CACHE, exist_ok=True)
    paths = {"mobilenet-330": os.path.join(CACHE, "mobilenet330.tflite"),
             "gather-nd": os.path.join(CACHE, "gather_nd.tflite")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    rng = np.random.default_rng(0)

    def w(*shape):
        return tf.constant(rng.standard_normal(shape).astype(np.float32) * 0.1)

    c = 40
    blocks = [(w(1, 1, c, 6 * c), w(3, 3, 6 * c, 1), w(1, 1, 6 * c, c)) for _ in range(81)]
    stem, head = w(3, 3, 3, c), w(c, 10)

    def mobilenet(x):
        x = tf.nn.relu6(tf.nn.conv2d(x, stem, 1, "SAME"))
        for expand, depthwise, project in blocks:
            y = tf.nn.relu6(tf.nn.conv2d(x, expand, 1, "SAME"))
            y = tf.nn.relu6(tf.nn.depthwise_conv2d(y, depthwise, [1, 1, 1, 1], "SAME"))
            x = x + tf.nn.conv2d(y, project, 1, "SAME")
        return tf.matmul(tf.reduce_mean(x, axis=[1, 2]), head)

    gather_w = w(1, 1, 4, 4)

    def gather_nd(x):
        y = tf.nn.conv2d(x, gather_w, 1, "SAME")
        return tf.tanh(tf.gather_nd(y, [[0, 1], [0, 2]]))

    for key, fn, shape in (("mobilenet-330", mobilenet, [1, 8, 8, 3]), ("gather-nd", gather_nd, [1, 4, 4, 4])):
        concrete = tf.function(fn, input_signature=[tf.TensorSpec(shape, tf.float32)]).get_concrete_function()
        data = tf.lite.TFLiteConverter.from_concrete_functions([concrete]).convert()
        with open(paths[key], "wb") as f:
            f.write(data)
    return paths


def timed(cmd: list[str]) -> tuple[float, int, str, float]:
    """Wall seconds, peak RSS in MB, stdout and CPU seconds (user + system) of one child process."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=CACHE)
    out = proc.stdout.read().decode(errors="replace")
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss // 1024, out, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build_models()
        return
    # Build in a child so this process stays small: a child's peak RSS counts what it inherited.
    subprocess.run([sys.executable, __file__, "--build-only"], check=True)
    paths = build_models()
    print(f"{'model':<15} {'ops':>5} {'MB':>5}  {'gpucompat s':>11} {'MB':>5}  {'Analyzer s':>10} {'MB':>5}  ratio")
    for key, path in paths.items():
        ours = [timed([sys.executable, "-m", "gpucompat", "check", path, "--format", "json"]) for _ in range(args.runs)]
        theirs = [timed([sys.executable, "-c", ANALYZER, path]) for _ in range(max(3, args.runs // 2))]
        t_ours, t_theirs = statistics.median(r[0] for r in ours), statistics.median(r[0] for r in theirs)
        import json

        summary = json.loads(ours[0][2])["models"][0]["summary"]
        print(f"{key:<15} {summary['ops_total']:>5} {os.path.getsize(path) / 1e6:>5.1f}  {t_ours:>11.3f} "
              f"{max(r[1] for r in ours):>5}  {t_theirs:>10.3f} {max(r[1] for r in theirs):>5}  "
              f"{t_theirs / t_ours:>5.1f}x")
        verdict = "looks compatible" in theirs[0][2]
        print(f"{'':<15} gpucompat: {summary['ops_gpu']}/{summary['ops_total']} ops on GPU; "
              f"Analyzer says 'looks compatible': {verdict}")


if __name__ == "__main__":
    main()
