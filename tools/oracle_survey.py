"""Compare `litert-mldrift` with the real LiteRT GPU accelerator (not run in CI).

usage: python3 tools/oracle_survey.py [MODEL.tflite ...]
Without arguments it builds every model registered by the test builders (tests/models_*.py) into
a temporary directory. Each model goes through /work/shared/oracle/delegation.py (ORACLE to point
elsewhere) and through `check_model(..., litert-mldrift)`; it prints one line per model with GPU
ops per subgraph, the full-delegation verdict, whether the model loads, and the rejected op
types on both sides, and a final agreement count. docs/fidelity.md records a run.
"""

from __future__ import annotations

import glob
import importlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("ORACLE", "/work/shared/oracle/delegation.py")


def build_test_models(directory: str) -> list[str]:
    """Build every registered test model into `directory`; their paths."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "models_*.py"))):
        importlib.import_module(os.path.basename(path)[:-3])
    import modelgen

    cache = modelgen.ModelCache(directory)
    return [cache.path(name) for name in sorted(modelgen.BUILDERS)]


def oracle(path: str) -> dict:
    """The accelerator's view: loaded, GPU ops per subgraph (first 'Replacing' line of each
    subgraph that is not XNNPACK's), rejected op types."""
    out = subprocess.run([sys.executable, ORACLE, path], capture_output=True, text=True, timeout=600).stdout
    res = json.loads(out.strip().splitlines()[-1])
    gpu: dict[int, int] = {}
    for r in res.get("replacing", []):
        if r["delegate"] != "TfLiteXNNPackDelegate":
            gpu.setdefault(int(r["subgraph"]), int(r["replaced"]))
    return {"loads": bool(res.get("ok")), "gpu": gpu, "rejected": sorted(res.get("rejected", {}))}


def predicted(path: str) -> dict:
    """Our view under litert-mldrift, in the same terms."""
    from gpucompat import ir
    from gpucompat.check import check_model
    from gpucompat.rules import registry
    from gpucompat.rules.profile import Options

    result = check_model(ir.load(path), registry.get("litert-mldrift"), Options())
    gpu: dict[int, int] = {}
    for o in result.ops:
        if o.placement == "gpu":
            gpu[o.subgraph] = gpu.get(o.subgraph, 0) + 1
    # the runtime lists unsupported ops only for subgraphs it does not take whole, and cannot
    # parse its lines for custom ops ("CUSTOM name: ...")
    partial = {s for s in {o.subgraph for o in result.ops} if any(
        o.placement == "cpu" for o in result.ops if o.subgraph == s)}
    rejected = sorted({o.op for o in result.ops if not o.verdict.ok and o.subgraph in partial and not o.custom_code})
    return {"loads": result.failure is None, "gpu": gpu, "rejected": rejected}


def main(paths: list[str]) -> int:
    """Run the comparison; 0 when every model agrees."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = paths or build_test_models(tmp)
        agree = 0
        for path in paths:
            ours, real = predicted(path), oracle(path)
            if not real["loads"]:
                real["gpu"], real["rejected"] = {}, []  # nothing is logged before the failure
                ours = {**ours, "gpu": {}, "rejected": []} if not ours["loads"] else ours
            same = ours == real
            agree += same
            print(f"{'ok  ' if same else 'DIFF'} {os.path.basename(path)}: real {real} ours {ours}")
        print(f"{agree}/{len(paths)} models agree")
    return 0 if agree == len(paths) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
