"""verify's task-level numerics (gpucompat/verification/task_metrics.py): top-1 / top-5 agreement
on classifier-like outputs, cosine, all-zero outputs and NaN / Inf; a top class that fp16 flips
fails verify unless --allow-class-flips, and `check --inputs` raises PREC409 for it (emulated
fp16, gpucompat/fp16_emulation.py)."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.verification.session import Settings, verify_model
from gpucompat.verification.task_metrics import TaskStats, classifier_like
from models_verdict import FLIP_INPUT


@pytest.fixture
def flip_inputs(tmp_path):
    path = tmp_path / "flip.npz"
    np.savez(path, **{"0": FLIP_INPUT[None]})
    return str(path)


def verify_flip(models, inputs, **settings):
    return verify_model(models.path("verdict_fp16_flip"), Settings(inputs=inputs, cache_dir="", **settings))


@pytest.mark.opencl
def test_a_class_that_fp16_flips_fails_verify_within_tolerance(models, flip_inputs):
    result = verify_flip(models, flip_inputs, precision="fp16")
    (out,) = result.record()["outputs"]
    assert out["within_tolerance"] and not out["passed"] and not result.passed, out
    task = out["task"]
    assert task["classifier"] and task["top1_agreement"] == 0.0 and task["class_flips"] == 1
    assert task["flips"] == [{"run": 0, "row": 0, "reference_class": 1, "test_class": 0}]


@pytest.mark.opencl
def test_allowed_class_flips_are_reported_not_failed(models, flip_inputs):
    result = verify_flip(models, flip_inputs, precision="fp16", allow_class_flips=True)
    (out,) = result.record()["outputs"]
    assert result.passed and out["task"]["class_flips"] == 1, out


@pytest.mark.opencl
def test_fp32_keeps_the_class(models, flip_inputs):
    result = verify_flip(models, flip_inputs)
    (out,) = result.record()["outputs"]
    assert result.passed and out["task"]["top1_agreement"] == 1.0 and out["task"]["class_flips"] == 0, out


def test_classifier_like_means_class_scores_not_coordinates(models, real_models):
    flip = ir.from_bytes(models.bytes("verdict_fp16_flip")).graphs[0]
    assert classifier_like(flip.outputs[0])
    for name in ("pose_landmark_full", "hand_landmark_lite"):  # landmarks: [1, 195] from a convolution,
        graph = ir.from_bytes(open(real_models[name], "rb").read()).graphs[0]  # [1, 63] from a FULLY_CONNECTED
        assert not any(classifier_like(t) for t in graph.outputs), name


def test_all_zero_and_not_finite_outputs_are_counted():
    stats = TaskStats(classifier=False)
    ref = np.array([0.5, -1.0, 2.0, 0.0])
    stats.add(np.zeros(4), ref)  # all zero where the reference is not
    stats.add(np.array([0.5, np.nan, np.inf, 0.0]), ref)
    stats.add(np.zeros(4), np.zeros(4))  # both all zero: agreement
    rec = stats.record()
    assert rec["all_zero_runs"] == 1 and rec["nan"] == 1 and rec["inf"] == 1
    assert rec["reference_nan"] == rec["reference_inf"] == 0
    assert rec["cosine_min"] == 0.0 and rec["top1_agreement"] is None


def test_top_k_agreement_and_ties():
    stats = TaskStats(classifier=True)
    ref = np.array([[3.0, 3.0, 1.0, 0.0, -1.0, -2.0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]])
    test = np.array([[2.9, 3.1, 1.0, 0.0, -1.0, -2.0],  # class 1 tied at the top in the reference: no flip
                     [0.1, 0.2, 0.3, 0.4, 0.7, 0.6]])  # top class 5 -> 4: a flip
    stats.add(test, ref)
    rec = stats.record()
    assert rec["class_flips"] == 1 and rec["top1_agreement"] == 0.5
    assert rec["flips"] == [{"run": 0, "row": 1, "reference_class": 5, "test_class": 4}]
    assert rec["top5_agreement"] == 1.0  # both rows keep their five largest classes
    assert 0.99 < rec["cosine_min"] < 1.0


def _prec409(models, tmp_path, x: np.ndarray) -> list[dict]:
    path = tmp_path / "samples.npz"
    np.savez(path, **{"0": x[None]})
    r = gpucompat("check", models.path("verdict_fp16_flip"), "--inputs", str(path), "--select", "PREC409",
                  "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["models"][0]["findings"]


def test_check_inputs_finds_the_class_that_fp16_flips(models, tmp_path):
    (finding,) = _prec409(models, tmp_path, FLIP_INPUT)
    assert finding["code"] == "PREC409"
    assert "'PartitionedCall:0'" in finding["message"] and "class 1 becomes 0" in finding["message"], finding


def test_check_inputs_is_silent_where_fp16_keeps_the_class(models, tmp_path):
    # at 10, class 0 wins by 2.6e-3 in fp32; half ties the logits at 10, and class 0 stays on top
    assert _prec409(models, tmp_path, FLIP_INPUT * 10) == []
