"""05: the HTML report of a model and of its fixed version, side by side.

    python examples/05_report.py [OUT_DIR]

One self-contained file (no network): open it in a browser, or keep it as a CI artifact.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def gpucompat(*args: str) -> None:
    # from examples/, `python -m gpucompat` runs the installed package, never a checkout's source folder
    print("$ gpucompat " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "gpucompat", *args], cwd=HERE, check=True)


def main() -> None:
    default = os.path.join(tempfile.gettempdir(), "gpucompat-examples")
    out = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else default
    os.makedirs(out, exist_ok=True)
    model = os.path.join(HERE, "models", "segmenter.tflite")
    fixed = os.path.join(out, "segmenter_fixed.tflite")
    gpucompat("fix", model, "-o", fixed)
    gpucompat("report", model, "--after", fixed, "-o", os.path.join(out, "report.html"))


if __name__ == "__main__":
    main()
