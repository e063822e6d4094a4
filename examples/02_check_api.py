"""02: check a model from Python and read the JSON record: where each op runs, why, and what to
change first.

    python examples/02_check_api.py [MODEL]

`gpucompat.check` returns the record `gpucompat check --format json` prints for the model
(docs/json-schema.md); a model it cannot read raises GpucompatError with the command's message.
"""

import os
import sys

import gpucompat
from gpucompat.errors import GpucompatError

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "models", "segmenter.tflite")
    try:
        rec = gpucompat.check(path, profile="gpu-current")
    except GpucompatError as e:
        sys.exit(str(e))
    s = rec["summary"]
    print(f"{path}: {s['ops_gpu']} of {s['ops_total']} ops on the GPU, "
          f"{s['partitions_delegated']} delegated partition(s)")
    for op in rec["ops"]:
        why = f"  ({op['reason']})" if op["reason"] else ""
        print(f"  #{op['index']:<3} {op['op']:<20} {op['placement'].upper()}  partition {op['partition']}{why}")
    for w in rec["what_if"][:3]:
        print(f"  what if: {w['summary']}")


if __name__ == "__main__":
    main()
