"""`gpucompat verify --backend litert-gpu`: LiteRT's real GPU accelerator as the test side (fp32, or
its default precision with --precision fp16: tests/test_fp16_precision.py).
Runs on the real device are fidelity-marked (they need a Vulkan device; `.ci/run` installs the
software driver); without a device the command says so in one line."""

import json
import os

import pytest

from cli import gpucompat


def _verify(*args):
    r = gpucompat("verify", *args, "--backend", "litert-gpu", "--cache-dir", "", timeout=600)
    if r.returncode == 2 and "no Vulkan device" in r.stderr and not os.environ.get("GPUCOMPAT_REQUIRE_VULKAN"):
        pytest.skip(r.stderr.strip())
    return r


@pytest.mark.fidelity
def test_a_fully_delegated_model_matches_the_reference_in_fp32(models):
    r = _verify(models.path("conv_relu"), "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["runs"] == 3 and doc["passed"] and doc["device"].startswith("LiteRT GPU accelerator, fp32")
    out = doc["outputs"][0]
    assert 0 < out["max_ref_abs"] and out["max_abs_error"] <= 1e-5 * out["max_ref_abs"]


def test_no_vulkan_device_is_one_line_and_exit_2(models, tmp_path, monkeypatch):
    none = f"{tmp_path}/none.json"
    (tmp_path / "env.sh").write_text(f"export VK_ICD_FILENAMES={none} VK_DRIVER_FILES={none}\n")
    monkeypatch.setenv("GPUCOMPAT_VULKAN_DIR", str(tmp_path))
    r = gpucompat("verify", models.path("conv_relu"), "--backend", "litert-gpu", "--cache-dir", "", timeout=300)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no Vulkan device" in r.stderr and "Traceback" not in r.stderr


def test_an_unknown_backend_is_refused(models):
    r = gpucompat("verify", models.path("conv_relu"), "--backend", "metal")
    assert r.returncode == 2 and "--backend must be one of opencl, litert-gpu" in r.stderr
