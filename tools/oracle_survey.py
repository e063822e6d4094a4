"""Compare `litert-mldrift` with the real LiteRT GPU accelerator over many models and print the
agreement figures recorded in docs/fidelity.md (tests/test_fidelity.py asserts the same in CI).

usage: python3 tools/oracle_survey.py [MODEL.tflite ...]
Without arguments it builds every model registered by the test builders (tests/models_*.py) into
a temporary directory. Needs a Vulkan device (see docs/fidelity.md, "Set-up").
"""

from __future__ import annotations

import glob
import importlib
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_test_models(directory: str) -> list[str]:
    """Build every registered test model into `directory`; their paths."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "models_*.py"))):
        importlib.import_module(os.path.basename(path)[:-3])
    import modelgen

    cache = modelgen.ModelCache(directory)
    return [cache.path(name) for name in sorted(modelgen.BUILDERS)]


def main(paths: list[str]) -> int:
    """One line per model, then the agreement count; 0 when every model agrees."""
    from gpucompat.confirm import compare, runner

    with tempfile.TemporaryDirectory() as tmp:
        results = compare.confirm(paths or build_test_models(tmp), runner.launcher())
    for c in results:
        status = "ok  " if not c.disagreements else "DIFF"
        print(f"{status} {os.path.basename(c.path)}: compiles {c.observed.compiles}, GPU ops {c.observed.gpu_ops}, "
              f"rejected {sorted(c.observed.rejected)} {'; '.join(c.disagreements)}")
    agree = sum(1 for c in results if not c.disagreements)
    print(f"{agree}/{len(results)} models agree")
    return 0 if agree == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
