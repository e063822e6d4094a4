"""A model whose stored input shape is a placeholder: the converter stores [1, 1] for a [-1, -1]
signature, where a wide VALID framing convolution cannot even prepare. Freezing it at a real
length, proving the freeze, verifying it and feeding it samples all run at the shape asked for,
never at the placeholder."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.npz_inputs import load_samples
from reference_runs import reference_outputs

MODEL = "freeze_placeholder_audio"
LENGTH = 1760


def _name(models) -> str:
    return ir.load(models.path(MODEL)).graphs[0].inputs[0].name


def _audio(count: int, shape) -> np.ndarray:
    return np.random.default_rng(7).standard_normal((count, *shape)).astype(np.float32)


def test_the_placeholder_cannot_prepare_but_the_signature_allows_real_lengths(models):
    inputs = ir.load(models.path(MODEL)).graphs[0].inputs
    assert inputs[0].shape == (1, 1) and inputs[0].signature == (-1, -1)
    a, b = (reference_outputs(models.bytes(MODEL), [x])[0] for x in _audio(2, (1, LENGTH)))
    assert np.abs(a - b).max() > 1e-3 * np.abs(a).max()  # the outputs depend on the audio
    r = gpucompat("verify", models.path(MODEL), "--runs", "1")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--input-shape" in r.stderr and "[-1, -1]" in r.stderr


@pytest.mark.opencl
def test_fix_freezes_at_the_named_length_and_proves_it_there(models, tmp_path):
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path(MODEL), "-o", str(out), "--input-shape", f"{_name(models)}=1,{LENGTH}",
                  "--format", "json", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["verification"]["ok"]
    assert {b["backend"]: b["not_run"] for b in doc["verification"]["backends"]} == {
        "reference-interpreter": None, "opencl-executor": None}
    fixed = ir.load(str(out)).graphs[0]
    assert fixed.inputs[0].shape == (1, LENGTH) and fixed.inputs[0].signature == (1, LENGTH)
    x = _audio(1, (1, LENGTH))[0]
    np.testing.assert_array_equal(reference_outputs(out.read_bytes(), [x])[0],
                                  reference_outputs(models.bytes(MODEL), [x])[0])


@pytest.mark.opencl
def test_fix_refuses_samples_of_another_length_than_the_frozen_one(models, tmp_path):
    samples = tmp_path / "audio.npz"
    np.savez(samples, _audio(2, (1, 1000)))
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path(MODEL), "-o", str(out), "--input-shape", f"{_name(models)}=1,{LENGTH}",
                  "--inputs", str(samples), "--format", "json", timeout=600)
    assert r.returncode == 1 and not out.exists()
    doc = json.loads(r.stdout)
    assert "frozen at (1, 1760)" in doc["verification"]["error"]


@pytest.mark.opencl
@pytest.mark.parametrize("shape", [(1, LENGTH), (LENGTH,)])
def test_verify_runs_the_stored_model_on_samples_the_signature_allows(models, tmp_path, shape):
    samples = tmp_path / "audio.npz"
    np.savez(samples, **{_name(models): _audio(2, shape)})
    r = gpucompat("verify", models.path(MODEL), "--inputs", str(samples), "--format", "json", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["runs"] == 2 and doc["passed"] and doc["outputs"][0]["max_ref_abs"] > 0


def test_samples_fit_the_signature_not_the_placeholder(models, tmp_path):
    inputs = ir.load(models.path(MODEL)).graphs[0].inputs
    path = tmp_path / "audio.npz"
    np.savez(path, _audio(3, (1, 999)))
    assert [s[0].shape for s in load_samples(str(path), inputs)] == [(1, 999)] * 3
    np.savez(path, _audio(3, (999,)))  # rank of the input: one row per sample
    assert [s[0].shape for s in load_samples(str(path), inputs)] == [(1, 999)] * 3
    np.savez(path, _audio(3, (1, 999, 1)))
    with pytest.raises(GpucompatError, match=r"needs \(samples, any, any\)"):
        load_samples(str(path), inputs)
