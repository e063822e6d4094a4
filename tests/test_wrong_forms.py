"""GPU005 / PREC408 and the explicit-rank-4 rewrite on the forms of issue 18's table (the models
TensorFlow's converter writes for them, tests/models_wrongform.py): `check --profile
litert-mldrift` reports each wrong form on its op and counts it in the summary, leaves the rank-4
twins alone, and `fix` turns each into a model the reference interpreter computes the same and
LiteRT's real accelerator computes right (fidelity-marked: needs the Vulkan device)."""

import json

import numpy as np
import pytest

import models_wrongform  # noqa: F401  (registers the builders)
from cli import gpucompat
from vulkan import gate, without_device

# the wrong forms, with the rewrite that fixes each
FIXES = {"wrongform_pad3_mid": "explicit-rank-4", "wrongform_add_mixed_rank": "explicit-rank-4",
         "wrongform_mul_channel_rank3": "explicit-rank-4", "wrongform_add_scalar_arange": "flat-constant",
         "wrongform_add_same_2d": "explicit-rank-4", "wrongform_mul_scalar_table": "flat-constant",
         "wrongform_add_batch_const": "split-batch", "wrongform_mul_channel_batch_const": "flat-constant",
         "wrongform_sub_from_batch_const": "split-batch"}
WRONG = list(FIXES)
RIGHT = ["wrongform_pad4_mid", "wrongform_add_same_4d"]
FIXABLE = WRONG


def _check(path, profile="litert-mldrift"):
    r = gpucompat("check", path, "--profile", profile, "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    return doc["models"][0] if "models" in doc else doc


@pytest.mark.parametrize("name", WRONG)
def test_a_wrong_form_is_an_error_on_its_op(models, name):
    rec = _check(models.path(name))
    found = [f for f in rec["findings"] if f["code"] == "GPU005"]
    assert len(found) == 1 and found[0]["severity"] == "error", rec["findings"]
    op = rec["ops"][found[0]["nodes"][0][1]]
    assert op["placement"] == "gpu" and op["op"] in found[0]["message"]
    assert "observed with LiteRT 2.3.0's accelerator" in found[0]["message"]
    assert rec["summary"]["ops_wrong"] == 1 and rec["wrong"][0]["nodes"] == found[0]["nodes"]


@pytest.mark.parametrize("name", RIGHT)
def test_the_rank_4_twin_gets_no_finding(models, name):
    rec = _check(models.path(name))
    assert not [f for f in rec["findings"] if f["code"].startswith("PREC40")] and rec["summary"]["ops_wrong"] == 0


def test_only_under_the_profile_it_was_observed_for(models):
    rec = _check(models.path("wrongform_pad3_mid"), "gpu-current")
    assert not [f for f in rec["findings"] if f["code"] == "GPU005"]


def test_terminal_lists_the_wrong_ops(models):
    r = gpucompat("check", models.path("wrongform_add_mixed_rank"), "--profile", "litert-mldrift")
    assert "1 delegated op(s) compute wrong values on the GPU" in r.stdout
    assert "ops the GPU takes and computes wrongly" in r.stdout


def test_explain(models):
    r = gpucompat("explain", "GPU005")
    assert r.returncode == 0 and "How to fix" in r.stdout and "explicit-rank-4" in r.stdout


@pytest.mark.parametrize("name", FIXABLE)
def test_fix_makes_a_right_form_unchanged_on_the_reference(models, tmp_path, name):
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path(name), "--profile", "litert-mldrift", "-o", str(out), "--format", "json")
    assert r.returncode == 0, r.stderr
    assert [a["rewrite"] for a in json.loads(r.stdout)["applied"]] == [FIXES[name]]
    assert not [f for f in _check(str(out))["findings"] if f["code"] == "GPU005"]
    from ai_edge_litert.interpreter import Interpreter

    outs = []
    for p in (models.path(name), str(out)):
        it = Interpreter(model_path=p)
        it.allocate_tensors()
        d = it.get_input_details()[0]
        it.set_tensor(d["index"], np.random.default_rng(1).standard_normal(d["shape"]).astype(np.float32))
        it.invoke()
        outs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert outs[0].shape == outs[1].shape and np.array_equal(outs[0], outs[1])


@pytest.mark.fidelity
@pytest.mark.parametrize("name", FIXABLE)
def test_the_fixed_model_is_right_on_the_accelerator(models, tmp_path, name):
    out = tmp_path / "fixed.tflite"
    assert gpucompat("fix", models.path(name), "--profile", "litert-mldrift", "-o", str(out)).returncode == 0
    runs = {}
    for p in (models.path(name), str(out)):
        r = gpucompat("verify", p, "--runner", "litert-gpu", "--runs", "1", "--format", "json", timeout=600)
        gate(r)
        runs[p] = json.loads(r.stdout)["outputs"][0]
    before, after = runs[models.path(name)], runs[str(out)]
    assert before["max_abs_error"] > 0.1 * before["max_ref_abs"]  # the original really is wrong
    assert after["max_abs_error"] <= 1e-3 * after["max_ref_abs"]


def test_verify_on_names_its_runners(models, tmp_path):
    r = gpucompat("fix", models.path("wrongform_pad3_mid"), "-o", str(tmp_path / "f.tflite"), "--verify-on", "metal")
    assert r.returncode == 2 and "--verify-on must be one of litert-gpu, gl-delegate, got 'metal'" in r.stderr
    assert not (tmp_path / "f.tflite").exists()


@pytest.mark.fidelity
def test_the_accelerator_backend_fails_a_wrong_model(models):
    """The fix's litert-gpu verification is a real check: the unfixed model fails it."""
    from gpucompat.runners import REAL_GPU
    from gpucompat.verification.fix_proof import verify

    data = models.bytes("wrongform_add_mixed_rank")
    result = verify(data, data, {"exact"}, REAL_GPU)
    if result.not_run:
        without_device(result.not_run)
    assert result.error is None and not result.ok
