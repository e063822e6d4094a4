"""Benchmark: `gpucompat check DIR --jobs N` over 100 models (target: <= 15 s with --jobs 2).

    python bench/many_models.py [--models 100] [--jobs 2]

Uses the models of bench/check_speed.py (a ~330-op MobileNetV2-style model and a small split
model; built once with TensorFlow into bench/.cache/), copies them alternately into a temporary
directory, and times one fresh `gpucompat check` process over the directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from check_speed import build_models  # noqa: E402


def main() -> None:
    """Time one run over the copied models and print the result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    sources = list(build_models().values())
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.models):
            shutil.copy(sources[i % len(sources)], os.path.join(d, f"model_{i:03d}.tflite"))
        start = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "gpucompat", "check", d, "--jobs", str(args.jobs),
                            "--format", "json"], capture_output=True, text=True, cwd=tempfile.gettempdir())
        elapsed = time.perf_counter() - start
    if r.returncode == 2:
        sys.exit(f"gpucompat failed: {r.stderr.strip()}")
    print(f"{args.models} models, --jobs {args.jobs}: {elapsed:.1f} s (target <= 15 s)")


if __name__ == "__main__":
    main()
