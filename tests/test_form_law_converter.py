"""FULLY_CONNECTED as TensorFlow's converter writes it (it picks the input rank, keep_num_dims and
the bias itself): `check --profile litert-mldrift` flags the rank-1 form the numerics grid measured
wrong on LiteRT's real GPU accelerator and leaves the rank-2 and rank-3 forms alone
(tests/models_formlaw.py CONVERTED_*); `fix` runs the rank-1 form as a batch of one
(batched-vector), which the accelerator computes right."""

import json

import pytest

import models_formlaw
from cli import gpucompat
from test_form_law import _check, _key
from test_gpu_proof import _fix
from vulkan import without_device


@pytest.mark.parametrize("name", sorted(models_formlaw.CONVERTED_WRONG))
def test_a_converted_wrong_fully_connected_is_flagged(models, name):
    rec = _check(models.path(f"formlaw_{name}"))
    found = [f for f in rec["findings"] if f["code"] == "GPU005"]
    assert len(found) == 1 and found[0]["severity"] == "error", rec["findings"]
    assert "LiteRT 2.3.0's accelerator at fp32: cosine" in found[0]["message"]
    assert rec["summary"]["ops_wrong"] == 1 and rec["summary"]["ops_unmeasured"] == 0


@pytest.mark.parametrize("name", sorted(models_formlaw.CONVERTED_RIGHT))
def test_a_converted_right_fully_connected_is_not_flagged(models, name):
    rec = _check(models.path(f"formlaw_{name}"))
    assert rec["summary"]["ops_gpu"] == rec["summary"]["ops_total"] > 0
    assert not [f for f in rec["findings"] if f["code"] in ("GPU005", "PREC408", "GPU007")], rec["findings"]


def test_the_converter_s_fully_connected_keys(models):
    """The converter keeps the rank of a matvec's rank-1 input (keep_num_dims, no bias) and writes
    a matmul plus bias of a rank-2 input as one FULLY_CONNECTED with its bias."""
    assert _key(models, "fully_connected_r1") == ("FULLY_CONNECTED [n] to [n], keeping dims with constant float32 "
                                                  "weights")
    assert _key(models, "fully_connected_r2") == "FULLY_CONNECTED [n,n] to [n,n] with constant float32 weights, bias"


def test_fix_runs_a_rank_1_fully_connected_as_a_batch_of_one(models, tmp_path):
    """A FULLY_CONNECTED of a rank-1 input (the converter's tf.linalg.matvec) is computed wrongly
    on the accelerator; batched-vector runs it on [1, 16] between RESHAPEs, a form measured right:
    check on the output flags nothing wrong."""
    out = tmp_path / "fixed.tflite"
    code, doc = _fix(models.path("formlaw_fully_connected_r1"), "-o", str(out), "--profile", "litert-mldrift",
                     "--no-verify")
    assert code == 0 and [e["rewrite"] for e in doc["applied"]] == ["batched-vector"], doc
    assert not [u for u in doc["real_gpu"]["ops"] if u["status"] == "wrong"], doc["real_gpu"]
    r = gpucompat("check", str(out), "--profile", "litert-mldrift", "--format", "json")
    rec = json.loads(r.stdout)
    rec = rec["models"][0] if "models" in rec else rec
    assert rec["summary"]["ops_wrong"] == 0 and rec["summary"]["ops_gpu"] == rec["summary"]["ops_total"], rec


@pytest.mark.fidelity
def test_the_batched_vector_fix_is_right_on_the_accelerator(models, tmp_path):
    """The premise, in the same run: the accelerator checks the fixed model and it passes."""
    code, doc = _fix(models.path("formlaw_fully_connected_r1"), "-o", str(tmp_path / "fixed.tflite"),
                     "--profile", "litert-mldrift")
    if doc["real_gpu"]["check"].startswith("not run: no Vulkan device"):
        without_device(doc["real_gpu"]["check"])
    assert code == 0 and doc["real_gpu"]["check"] == "passed" and doc["verification"]["ok"], doc
