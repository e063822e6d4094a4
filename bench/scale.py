"""Benchmark: time and peak memory of `gpucompat check` and `fix` against TensorFlow's Analyzer
(and edge-compat's `edge-lint` when installed) on big and long models, side by side, one run.

    python bench/scale.py [--runs 3] [--keep] [--cache DIR] [--no-big] [--models A,B]

Models (bench/scale_models.py, built with TensorFlow's converter into --cache, default
bench/.cache/scale): 805 MB of weights (12 FULLY_CONNECTED 4096x4096 fp32); the same layers three
times over, 2.4 GB (weights after the flatbuffer: the converter's offset layout); chains of 2,000,
20,000 and 100,000 ADD / TANH ops. Each tool runs as a fresh process (what a pre-commit hook
pays): wall and CPU (user + system) seconds, medians, and peak RSS (largest, from wait4); on a
shared machine the CPU seconds are the steadier figure. The GB files are deleted at the end
unless --keep. Needs TensorFlow (the `dev` extra); gpucompat itself never imports it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from check_speed import ANALYZER, timed

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {  # name: (how bench/scale_models.py builds it, GB-sized)
    "weights-805MB": (["weights", "12"], True),
    "weights-2.4GB": (["repeat", "3", "{weights-805MB}"], True),
    "chain-2k": (["chain", "2000"], False),
    "chain-20k": (["chain", "20000"], False),
    "chain-100k": (["chain", "100000"], False),
}


def build(cache: str, names: list[str]) -> dict[str, str]:
    """Paths of the models, each built in a child process unless already in `cache`."""
    os.makedirs(cache, exist_ok=True)
    paths = {name: os.path.join(cache, f"{name}.tflite") for name in names}
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), TF_CPP_MIN_LOG_LEVEL="3")
    for name in names:
        if not os.path.exists(paths[name]):
            args = [a.format(**paths) for a in MODELS[name][0]]
            cmd = [sys.executable, os.path.join(HERE, "scale_models.py"), *args]
            subprocess.run([*cmd, paths[name]], check=True, env=env, stderr=subprocess.DEVNULL)
    return paths


def tools(path: str, scratch: str) -> dict[str, list[str]]:
    """The commands compared on one model."""
    check = [sys.executable, "-m", "gpucompat", "check", path, "--fail-on", "never"]
    out = {"gpucompat check": check,
           "gpucompat check --format json": [*check, "--format", "json"],
           "gpucompat check --format sarif": [*check, "--format", "sarif"],
           "gpucompat fix --no-verify": [sys.executable, "-m", "gpucompat", "fix", path, "--no-verify",
                                         "-o", os.path.join(scratch, "fixed.tflite")],
           "TF Analyzer": [sys.executable, "-c", ANALYZER, path]}
    if shutil.which("edge-lint"):
        out["edge-lint"] = ["edge-lint", path]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the GB-sized models in the cache")
    parser.add_argument("--no-big", action="store_true", help="only the op chains")
    parser.add_argument("--cache", default=os.path.join(HERE, ".cache", "scale"))
    parser.add_argument("--models", help="comma-separated subset of: " + ", ".join(MODELS))
    args = parser.parse_args()
    chosen = args.models.split(",") if args.models else list(MODELS)
    names = [n for n in MODELS if n in chosen and not (args.no_big and MODELS[n][1])]
    print(subprocess.run(["df", "-h", args.cache if os.path.exists(args.cache) else HERE],
                         capture_output=True, text=True).stdout)
    paths = build(args.cache, names)
    print(f"{'model':<15} {'size':>8} {'tool':<31} {'wall s':>7} {'CPU s':>6} {'peak MB':>8} {'peak/size':>9}")
    try:
        for name in names:
            size = os.path.getsize(paths[name])
            with tempfile.TemporaryDirectory(dir=os.path.dirname(paths[name])) as scratch:
                for tool, cmd in tools(paths[name], scratch).items():
                    runs = [timed(cmd) for _ in range(args.runs)]
                    peak = max(r[1] for r in runs)
                    print(f"{name:<15} {size / 1e6:>6.0f}MB {tool:<31} {statistics.median(r[0] for r in runs):>7.2f} "
                          f"{statistics.median(r[3] for r in runs):>6.2f} {peak:>8} {peak * 2**20 / size:>9.2f}",
                          flush=True)
    finally:
        if not args.keep:
            for name in names:
                if MODELS[name][1] and os.path.exists(paths[name]):
                    os.remove(paths[name])


if __name__ == "__main__":
    main()
