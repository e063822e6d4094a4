"""How long `fix` takes on a ~6 MB model, verification excluded (target: <= 3 s).

Builds a DeepLab-like stack of ten 3x3x128x128 dilated convolutions with a dynamic batch (the
converter keeps every SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND pair), then times loading, checking,
rewriting to a fixpoint, re-checking and serialising. Prints; asserts nothing.

usage: python bench/fix_speed.py
"""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))


def build() -> bytes:
    from modelgen import const, convert_fn, tf

    t = tf()
    weights = [const([3, 3, 128, 128], seed=i, scale=0.05) for i in range(10)]

    def f(x):
        for i, w in enumerate(weights):
            x = t.nn.relu(t.nn.atrous_conv2d(x, w, 2 + i % 3, "SAME"))
        return x

    return convert_fn(f, [([None, 33, 33, 128], t.float32)])


def main() -> None:
    from gpucompat import rewrites
    from gpucompat.fixing import run
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    raw = build()
    path = os.path.join(tempfile.mkdtemp(), "deeplab_like.tflite")
    with open(path, "wb") as f:
        f.write(raw)
    start = time.perf_counter()
    fix = run.fix_file(path, rewrites.select(), registry.get("gpu-current"), Options())
    elapsed = time.perf_counter() - start
    print(f"model {len(raw) / 1e6:.1f} MB, {fix.before.ops_total} ops -> {fix.after.ops_total} ops, "
          f"{len(fix.trace.applied)} rewrites, GPU {fix.before.ops_gpu} -> {fix.after.ops_gpu}: "
          f"fix without verification {elapsed:.2f} s (target <= 3 s)")


if __name__ == "__main__":
    main()
