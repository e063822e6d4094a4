"""verify and fix on real converter output: the 14 MediaPipe 0.10.14 models (fp16 weights read
through DEQUANTIZE, sparse weights through DENSIFY, MediaPipe's custom ops).

- Every model the delegate takes whole passes `verify` at its defaults in fp32 (the default rule
  is right on real models, not only on the suite's own), and in fp16 where half storage keeps the
  outputs within the fp16 default.
- `fix` then `verify --against` the original works on every model: the fixed model on the
  executor computes what the original computes on the reference interpreter; a model whose CPU
  partitions hold custom ops the reference interpreter has no kernel for is refused in one line
  naming the op.

- An ill-conditioned real output (pose_landmark_full's segmentation) passes at the defaults
  whatever the seed and the number of runs.

Cost: two runs per model (one in fp16); about 1 minute for verify (13 models in fp32, 3 in fp16),
30 s for the three seeds of pose_landmark_full, and 1.5 to 2 for fix + verify on PoCL's CPU device
(2 shared cores).
"""

import json

import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.verification.placements import placements
from gpucompat.verification.session import Settings, verify_model
from real_models import NAMES

# fp16: three of the ten models that pass at the fp16 default (the fastest). pose_landmark_full and
# the two selfie_segmentation models are not among them: half storage moves their outputs by 8% to
# a third of their magnitude on random inputs (docs/verify.md "Default tolerances"), and verify
# rightly fails them.
FP16_MODELS = ["hand_landmark_lite", "iris_landmark", "palm_detection_lite"]


def fully_delegated(path) -> bool:
    return "cpu" not in placements(ir.from_bytes(open(path, "rb").read()), "gpu-current")


@pytest.mark.parametrize("name", NAMES)
def test_verify_passes_every_fully_delegable_real_model_in_fp32(real_models, name):
    path = str(real_models[name])
    if not fully_delegated(path):
        # the CPU part holds MediaPipe custom ops without a reference kernel: refused in one line
        r = gpucompat("verify", path, "--runs", "1")
        assert r.returncode == 2 and "unresolved custom op" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
        return
    result = verify_model(path, Settings(runs=2, cache_dir=""))
    doc = result.record()
    assert result.passed, doc["outputs"]
    assert all(o["max_rel_error"] < 1e-3 and o["noise_floor"] is not None for o in doc["outputs"])


# pose_landmark_full's segmentation output (Identity_2) is ill-conditioned on N(0, 1) inputs: one
# ulp on the input moves the reference by up to 3.2 of its magnitude 1550, and XNNPACK and the
# builtin kernels differ by up to 7.0 (docs/verify.md "Ill-conditioned outputs"). Run 3 of seed 0
# is past atol + rtol x max|ref| (2.6 against 1.3), and was a FAIL before the rule counted the
# reference's own rounding sensitivity; seeds 1 and 2 reach it on other runs.
@pytest.mark.parametrize("seed, runs", [(0, 4), (1, 1), (2, 3)])
def test_an_ill_conditioned_real_output_passes_whatever_the_seed_and_runs(real_models, seed, runs):
    result = verify_model(str(real_models["pose_landmark_full"]), Settings(runs=runs, seed=seed, cache_dir=""))
    outputs = result.record()["outputs"]
    assert result.passed, outputs
    if seed == 0:
        segmentation = next(o for o in outputs if o["name"] == "Identity_2")
        assert segmentation["max_rel_error"] > 1e-3 and segmentation["sensitivity"] > 0, segmentation


@pytest.mark.parametrize("name", FP16_MODELS)
def test_verify_passes_real_models_in_fp16(real_models, name):
    result = verify_model(str(real_models[name]), Settings(runs=1, precision="fp16", cache_dir=""))
    assert result.passed, result.record()["outputs"]


@pytest.mark.parametrize("name", NAMES)
def test_fix_then_verify_against_the_original_works_on_every_real_model(real_models, name, tmp_path):
    original, fixed = str(real_models[name]), str(tmp_path / f"{name}.fixed.tflite")
    r = gpucompat("fix", original, "-o", fixed, "--format", "json", timeout=600)
    assert r.returncode == 0, r.stderr
    proof = json.loads(r.stdout)["verification"]  # None when no rewrite applied
    assert proof is None or proof["ok"], proof
    r = gpucompat("verify", fixed, "--against", original, "--runs", "2", "--cache-dir", "", "--format", "json",
                  timeout=600)
    model = ir.from_bytes(open(original, "rb").read())
    custom = sorted({op.name for op in model.graphs[0].ops if op.code.custom})
    if r.returncode == 2:  # the reference interpreter cannot run a custom op on the CPU side
        assert r.stderr.count("\n") == 1 and any(c in r.stderr for c in custom), r.stderr
        assert not fully_delegated(original)
        return
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["passed"], doc["outputs"]
