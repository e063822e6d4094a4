"""`pip install gpucompat` without the `verify` extra (no pyopencl, no CPU OpenCL runtime): check
and fix work, fix still proves its rewrites on the reference interpreter and says in one line what
the executor's check needs, verify and doctor say exactly what to install. The child processes
see a `pyopencl` that is not there (a module on PYTHONPATH that fails as a missing one does)."""

import json
import os
import subprocess
import sys

import pytest

from not_installed import pythonpath_without
from vulkan import gate

INSTALL = "pip install 'gpucompat[verify]'"


@pytest.fixture(scope="module")
def without_pyopencl(tmp_path_factory):
    """Run `python -m gpucompat ARGS` as on an install without the extra."""
    stub = tmp_path_factory.mktemp("no-pyopencl")
    path = pythonpath_without(stub, "pyopencl")

    def gpucompat(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gpucompat", *args], capture_output=True, text=True,
                              cwd=str(stub), env={**os.environ, "PYTHONPATH": path}, timeout=300)

    return gpucompat


def test_verify_says_what_to_install_in_one_line_and_exits_2(models, without_pyopencl):
    r = without_pyopencl("verify", models.path("conv_relu"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and INSTALL in r.stderr and "Traceback" not in r.stderr


def test_verify_on_the_real_accelerator_needs_no_extra(models, without_pyopencl):
    r = without_pyopencl("verify", models.path("conv_relu"), "--runner", "litert-gpu", "--runs", "1")
    gate(r)
    assert r.returncode == 0 and "PASSED" in r.stdout, r.stderr


def test_fix_proves_its_rewrites_on_the_reference_and_says_once_what_the_executor_needs(models, without_pyopencl,
                                                                                         tmp_path):
    out = tmp_path / "fixed.tflite"
    r = without_pyopencl("fix", models.path("stb_same_bias_relu"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "verification on the reference-interpreter (relative 1e-05): passed" in r.stdout
    needs = [line for line in r.stdout.splitlines() if INSTALL in line]
    assert len(needs) == 1 and "verification on the opencl-executor: not run" in needs[0]
    assert out.exists()
    doc = json.loads(without_pyopencl("fix", models.path("stb_same_bias_relu"), "-o", str(tmp_path / "again.tflite"),
                                      "--format", "json").stdout)
    ref, exe = doc["verification"]["backends"]
    assert ref["ok"] and ref["not_run"] is None and ref["outputs"]
    assert INSTALL in exe["not_run"] and not exe["outputs"] and doc["verification"]["ok"]


def test_doctor_says_verify_cannot_run_and_what_to_install(without_pyopencl):
    r = without_pyopencl("doctor")
    assert r.returncode == 1
    assert any(line.startswith("verify cannot run: ") and INSTALL in line for line in r.stdout.splitlines())
    doc = json.loads(without_pyopencl("doctor", "--format", "json").stdout)
    assert not doc["verify_can_run"] and INSTALL in doc["opencl"]["error"] and doc["opencl"]["devices"] == []


def test_check_runs_without_it(models, without_pyopencl):
    r = without_pyopencl("check", models.path("conv_relu"))
    assert r.returncode == 0 and "conv_relu" in r.stdout
