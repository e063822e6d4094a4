"""03: fix a model so the GPU delegate takes more of it, then check the result.

    python examples/03_fix.py [OUT_DIR]

The bundled segmenter was exported with a dynamic batch, so the converter wrapped its dilated
depthwise convolution in SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND, which the GPU delegate rejects.
`gpucompat fix` folds the pair back into the convolution's dilation and verifies that the outputs
did not change before it writes the new model.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def gpucompat(*args: str) -> int:
    # from examples/, `python -m gpucompat` runs the installed package, never a checkout's source folder
    print("$ gpucompat " + " ".join(args), flush=True)
    return subprocess.run([sys.executable, "-m", "gpucompat", *args], cwd=HERE).returncode


def main() -> None:
    default = os.path.join(tempfile.gettempdir(), "gpucompat-examples")
    out = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else default
    os.makedirs(out, exist_ok=True)
    fixed = os.path.join(out, "segmenter_fixed.tflite")
    if gpucompat("fix", os.path.join(HERE, "models", "segmenter.tflite"), "-o", fixed) != 0:
        sys.exit("fix failed")
    gpucompat("check", fixed)


if __name__ == "__main__":
    main()
