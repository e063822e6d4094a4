"""Which test files run without TensorFlow: runs the test files (all of tests/test_*.py, or those
named) once with GPUCOMPAT_TESTS_WITHOUT_TF=1, which makes `import tensorflow` fail in the test
process and its children, and lists the files none of whose tests failed or errored (and those
that fail at the blocked import, or for another reason).

    python tools/tests_without_tf.py            # measure and print
    python tools/tests_without_tf.py --write    # also rewrite tests/without_tf.txt, the list CI runs

The whole suite takes minutes even so (the OpenCL executor's tests run); files needing TensorFlow
fail at their first model build."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "without_tf.txt"


BLOCKED = "GPUCOMPAT_TESTS_WITHOUT_TF is set"  # in the message of the blocked import (tests/conftest.py)


def outcomes(files: list[str]) -> dict[str, str]:
    """Test file (relative to the checkout) -> "without TF" when all its tests passed or skipped
    with TensorFlow blocked, "needs TF" when one failed at the blocked import, else "fails"."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "junit.xml")
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1"]
        subprocess.run([*pytest, f"--junitxml={report}", *files], cwd=ROOT, stdout=subprocess.DEVNULL, check=False,
                       env={**os.environ, "GPUCOMPAT_TESTS_WITHOUT_TF": "1"})
        cases = ET.parse(report).getroot().iter("testcase")
        found: dict[str, str] = {}
        for case in cases:
            # a file that fails to import is one case named after its module, without a file attribute
            name = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
            name = name if name.startswith("tests/") else f"tests/{Path(name).name}"
            problems = [e.get("message", "") + (e.text or "") for e in (*case.iter("failure"), *case.iter("error"))]
            kind = "needs TF" if any(BLOCKED in p for p in problems) else "fails" if problems else "without TF"
            found[name] = max(found.get(name, kind), kind, key=("without TF", "fails", "needs TF").index)
    return {f: found.get(f, "fails") for f in files}


def main() -> int:
    """Measure, print the count and the files, and with --write keep the list CI runs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="test files to try (default: every tests/test_*.py)")
    parser.add_argument("--write", action="store_true", help=f"rewrite {LIST.relative_to(ROOT)}")
    args = parser.parse_args()
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py"))
    result = outcomes(files)
    free = [f for f, kind in result.items() if kind == "without TF"]
    for f, kind in result.items():
        print(f"{kind:10}  {f}")
    print(f"{len(free)} of {len(files)} test files run without TensorFlow")
    if args.write:
        LIST.write_text("".join(f"{f}\n" for f in free))
    return 0


if __name__ == "__main__":
    sys.exit(main())
