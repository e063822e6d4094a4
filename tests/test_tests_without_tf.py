"""The test files listed in tests/without_tf.txt build their models without TensorFlow (the IR
builder, tests/irbuild.py): .ci/run runs them with GPUCOMPAT_TESTS_WITHOUT_TF=1, which makes
`import tensorflow` fail, so a rule, rewrite or partition change is tested without the converter."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
WITHOUT_TF = "GPUCOMPAT_TESTS_WITHOUT_TF"


def test_at_least_half_the_test_files_run_without_tensorflow():
    listed = (TESTS / "without_tf.txt").read_text().split()
    files = sorted(f"tests/{p.name}" for p in TESTS.glob("test_*.py"))
    assert sorted(set(listed) - set(files)) == []  # no stale entry: tools/tests_without_tf.py --write
    assert 2 * len(listed) >= len(files), f"{len(listed)} of {len(files)} test files run without TensorFlow"


def test_blocked_tensorflow_fails_naming_why():
    """This file's last test, run in a child pytest with TensorFlow blocked, finds the import
    refused in the test process and in its own child."""
    this = f"{Path(__file__).name}::test_tensorflow_is_refused_when_blocked"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", this],
                       capture_output=True, text=True, cwd=TESTS, timeout=300, env={**os.environ, WITHOUT_TF: "1"})
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr


def test_tensorflow_is_refused_when_blocked():
    if not os.environ.get(WITHOUT_TF):
        pytest.skip(f"runs with {WITHOUT_TF}=1 only (test_blocked_tensorflow_fails_naming_why runs it so)")
    reason = f"this test needs TensorFlow's converter; {WITHOUT_TF} is set"
    with pytest.raises(ModuleNotFoundError, match=reason):
        import tensorflow  # noqa: F401
    child = subprocess.run([sys.executable, "-c", "import tensorflow"], capture_output=True, text=True, timeout=120)
    assert child.returncode == 1 and reason in child.stderr
