"""`gpucompat verify --runner litert-gpu`: LiteRT's real GPU accelerator (fp32, or fp16: its default)
as the test side, whole or partly delegated, with --localize.
Runs on the real device are fidelity-marked (they need a Vulkan device; `.ci/run` installs the
software driver); without a device the command says so in one line."""

import json

import pytest

import models_wrongform  # noqa: F401  (registers the builders)
from cli import gpucompat
from vulkan import gate


def _verify(*args):
    r = gpucompat("verify", *args, "--runner", "litert-gpu", "--cache-dir", "", timeout=600)
    gate(r)
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
    r = gpucompat("verify", models.path("conv_relu"), "--runner", "litert-gpu", "--cache-dir", "", timeout=300)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no Vulkan device" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.fidelity
def test_fp16_is_the_accelerators_default_precision(models):
    r = _verify(models.path("conv_relu"), "--precision", "fp16", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["precision"] == "fp16" and doc["device"].startswith("LiteRT GPU accelerator, fp16")
    out = doc["outputs"][0]
    assert 1e-5 * out["max_ref_abs"] < out["max_abs_error"] <= 1e-2 * out["max_ref_abs"]  # fp16, not fp32


@pytest.mark.fidelity
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_localize_names_the_wrong_op(models, precision):
    """TANH, a rank-3 PAD (computed wrongly), MUL: the PAD is the first op that diverges."""
    r = _verify(models.path("wrongform_chain"), "--precision", precision, "--runs", "1", "--localize",
                "--format", "json")
    assert r.returncode == 1, r.stderr
    first = json.loads(r.stdout)["first_divergent_op"]
    assert first["op"] == "PAD" and first["index"] == 1 and first["max_abs_error"] > 0.1


@pytest.mark.fidelity
def test_a_partly_delegated_model(models):
    """ADD of a runtime rank-0 tensor is not delegated; the wrong PAD before it is."""
    r = _verify(models.path("wrongform_partly"), "--runs", "1", "--localize", "--format", "json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert "partly delegated" in doc["device"] and doc["first_divergent_op"]["op"] == "PAD"


def test_an_unknown_runner_in_the_old_spelling_is_refused(models):
    r = gpucompat("verify", models.path("conv_relu"), "--backend", "metal")
    assert r.returncode == 2 and "must be one of opencl, litert-gpu, gl-delegate, got 'metal'" in r.stderr
    assert "--backend is deprecated here, use --runner" in r.stderr and "Traceback" not in r.stderr
