"""03: fix a model so the GPU delegate takes more of it, then check the result.

    python examples/03_fix.py [OUT_DIR]

The bundled segmenter was exported with a dynamic batch, so the converter wrapped its dilated
depthwise convolution in SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND, which the GPU delegate rejects.
`gpucompat.fix` (the `gpucompat fix` command's work) folds the pair back into the convolution's
dilation and verifies that the outputs did not change before it writes the new model.
"""

import os
import sys
import tempfile

import gpucompat

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    default = os.path.join(tempfile.gettempdir(), "gpucompat-examples")
    out = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else default
    os.makedirs(out, exist_ok=True)
    fixed = os.path.join(out, "segmenter_fixed.tflite")
    doc = gpucompat.fix(os.path.join(HERE, "models", "segmenter.tflite"), fixed)
    for applied in doc["applied"]:
        print(f"applied {applied['rewrite']} ({applied['safety']}) to {', '.join(applied['nodes'])}")
    if not doc["verification"]["ok"]:
        sys.exit(f"the fix changed the outputs; rewrites to blame: {doc['failing_rewrites']}")
    before, after = doc["before"], doc["after"]
    whole = "fully delegated" if after["fully_delegated"] else "partly delegated"
    print(f"before: {before['ops_gpu']} of {before['ops_total']} ops on the GPU; "
          f"after: {after['ops_gpu']} of {after['ops_total']} ({whole})")
    print(f"wrote {doc['output']}")


if __name__ == "__main__":
    main()
