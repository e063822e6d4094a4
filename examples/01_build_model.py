"""01: build a small model with TensorFlow's converter and check it (needs pip install '.[dev]').

    python examples/01_build_model.py [OUT_DIR]

The model is conv -> GATHER_ND -> mul -> add -> tanh. The GPU delegate has no GATHER_ND, so the
graph splits into GPU | CPU | GPU runs and, by default, only the larger GPU run is delegated.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

try:
    import tensorflow as tf
except ModuleNotFoundError:  # pip install . does not bring it
    sys.exit("01_build_model.py builds its model with TensorFlow's converter, which is not installed here: "
             "pip install '.[dev]' (or pip install tensorflow-cpu), or try 02_check_api.py on the bundled models")


def build() -> bytes:
    w = tf.constant(np.random.default_rng(0).standard_normal([1, 1, 4, 4]).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 4, 4, 4], tf.float32)])
    def model(x):
        y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME"))
        y = tf.gather_nd(y, [[0, 1], [0, 2]])
        return tf.tanh(y * 2.0 + 1.0)

    return tf.lite.TFLiteConverter.from_concrete_functions([model.get_concrete_function()]).convert()


def main() -> None:
    default = os.path.join(tempfile.gettempdir(), "gpucompat-examples")
    out = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else default
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "island.tflite")
    with open(path, "wb") as f:
        f.write(build())
    print(f"wrote {path}")
    # Exit code 1 means findings: here, ops that stay on the CPU.
    code = subprocess.run([sys.executable, "-m", "gpucompat", "check", path], cwd=out).returncode
    print(f"gpucompat check exited with {code}")


if __name__ == "__main__":
    main()
