"""The Python API (gpucompat.check / fix / verify) returns the records the commands print as JSON."""

import importlib
import json
import subprocess
import sys
import tempfile

import pytest

import gpucompat
from cli import gpucompat as run_cli
from gpucompat.errors import GpucompatError


def test_check_returns_the_record_the_command_prints(models):
    path = models.path("two_gathers")
    rec = gpucompat.check(path, profile="litert-mldrift", max_delegated_partitions=3)
    printed = json.loads(run_cli("check", path, "--profile", "litert-mldrift", "--max-delegated-partitions", "3",
                                 "--format", "json").stdout)["models"][0]
    assert rec == printed
    assert rec["summary"]["partitions_delegated"] == 3


def test_check_raises_naming_the_file(tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a model")
    with pytest.raises(GpucompatError, match="bad.tflite"):
        gpucompat.check(str(bad))
    with pytest.raises(GpucompatError, match="no vulkan backend"):
        gpucompat.check(str(bad), backend="vulkan")


def test_fix_proves_and_writes(models, tmp_path):
    out = tmp_path / "fixed.tflite"
    doc = gpucompat.fix(models.path("stb_same_bias_relu"), str(out))
    assert [a["rewrite"] for a in doc["applied"]] == ["fold-space-to-batch"]
    assert doc["verification"]["ok"] is True and doc["output"] == str(out) and out.exists()
    assert gpucompat.check(str(out))["summary"]["fully_delegated"] is True
    dry = gpucompat.fix(models.path("stb_same_bias_relu"), verify=False)
    assert dry["output"] is None and dry["verification"] is None and dry["applied"] == doc["applied"]


@pytest.mark.opencl
def test_verify_runs_on_the_executor_and_stays_callable(models):
    doc = gpucompat.verify(models.path("two_gathers"), runs=2)
    assert doc["passed"] is True and doc["runs"] == 2
    importlib.import_module("gpucompat.verification.budget")  # the verification modules: no name clash

    assert gpucompat.verify(models.path("two_gathers"), runs=1, precision="fp16")["precision"] == "fp16"


def test_importing_the_api_stays_light():
    probe = ("import sys, gpucompat\n"
             "heavy = [m for m in ('tensorflow', 'pyopencl', 'networkx', 'numpy') if m in sys.modules]\n"
             "assert not heavy, heavy")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
