"""04: run a model on the included OpenCL executor (the GPU part, in the delegate's 4-channel
layout) and compare it with the reference interpreter, like TFLite's inference_diff.

    python examples/04_verify.py [MODEL]

With no GPU driver the executor runs on PoCL (a CPU OpenCL), so this checks the arithmetic and the
layout, not a phone's GPU. Read max_abs_error against max_ref_abs: an error of 1e-7 on outputs of
size 2 is float32 rounding. `gpucompat.verify` returns the record `gpucompat verify --format json`
prints.
"""

import os
import sys

import gpucompat
from gpucompat.errors import GpucompatError

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    path = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(HERE, "models", "classifier.tflite")
    try:
        doc = gpucompat.verify(path, runs=5)
    except GpucompatError as e:
        sys.exit(str(e))
    print(f"{path} on {doc['device']}, {doc['runs']} runs at {doc['precision']}:")
    for out in doc["outputs"]:
        print(f"  output {out['name']}: max_abs_error {out['max_abs_error']:.3g} "
              f"(outputs up to {out['max_ref_abs']:.3g}) -> {'pass' if out['passed'] else 'FAIL'}")
    print("passed" if doc["passed"] else f"failed; first divergent op: {doc['first_divergent_op']}")


if __name__ == "__main__":
    main()
