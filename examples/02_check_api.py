"""02: check a model from Python and read the JSON record: where each op runs, why, and what to
change first.

    python examples/02_check_api.py [MODEL]

The record is the same dict `gpucompat check --format json` prints (docs/json-schema.md).
"""

import os
import sys

from gpucompat.batch import Task, check_one

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "models", "segmenter.tflite")
    rec = check_one(Task(path, "gpu-current", "cl", allow_quant=True, max_delegated_partitions=1))
    if rec["error"]:
        sys.exit(f"{path}: {rec['error']}")
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
