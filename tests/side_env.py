"""Tests of what other converters write need their own Python, which the test environment never
imports: litert-torch's (torch, litert-torch) and onnx2tf's (TensorFlow 2.19 and onnx pinned by
onnx2tf). Each is $GPUCOMPAT_<NAME>_PYTHON, else the venv tools/side_envs.sh builds
(~/.cache/gpucompat-side/<name>, once its install finished; .ci/run builds both). Without one, the
test skips naming it, or fails when GPUCOMPAT_REQUIRE_<NAME> is set."""

import os
import subprocess
from pathlib import Path

import pytest

SIDE = Path(__file__).with_name("side")
ENVS = {"torch": "torch and litert-torch", "onnx2tf": "onnx2tf"}  # what each one holds


def side_python(name: str) -> str:
    """The converter's Python, or the skip (failure) naming what is missing."""
    holds = ENVS[name]
    given = os.environ.get(f"GPUCOMPAT_{name.upper()}_PYTHON")
    venv = Path.home() / ".cache" / "gpucompat-side" / name
    path = Path(given) if given else venv / "bin" / "python"
    if not path.exists() or not (given or (venv / ".ready").exists()):
        why = f"no Python with {holds} at {path} (set GPUCOMPAT_{name.upper()}_PYTHON, or run tools/side_envs.sh)"
        if os.environ.get(f"GPUCOMPAT_REQUIRE_{name.upper()}"):
            pytest.fail(f"GPUCOMPAT_REQUIRE_{name.upper()} is set but {why}")
        pytest.skip(why)
    return str(path)


def run_side(name: str, script: str, *args: str, cwd: str | None = None) -> None:
    """tests/side/SCRIPT in the converter's Python (its venv's tools first on PATH: onnx2tf runs
    onnxsim); a failure shows its last stderr lines."""
    python = side_python(name)
    env = {**os.environ, "PATH": os.pathsep.join((str(Path(python).parent), os.environ.get("PATH", "")))}
    proc = subprocess.run([python, str(SIDE / script), *args], capture_output=True, text=True, timeout=900,
                          env=env, cwd=cwd)
    assert proc.returncode == 0, f"{script} failed:\n" + "\n".join((proc.stderr or proc.stdout).splitlines()[-15:])
