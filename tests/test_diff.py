"""`gpucompat diff`: what got worse between two versions of a model; exit 1 on a regression."""

import json

from cli import gpucompat


def test_regression_between_versions(models):
    # gather_nd_island: 3 of 5 ops on the GPU; two_gathers: 2 of 6, a second GATHER_ND on the CPU
    r = gpucompat("diff", models.path("gather_nd_island"), models.path("two_gathers"), "--format", "json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    changes = {c["measure"]: (c["old"], c["new"], c["worse"]) for c in doc["changes"]}
    assert changes["share of ops on the GPU"] == (3 / 5, 2 / 6, True)
    assert changes["GATHER_ND ops on the CPU"] == (1, 2, True)
    assert changes["bytes copied between CPU and GPU per inference"] == (256, 128, False)


def test_improvement_exits_zero(models):
    r = gpucompat("diff", models.path("two_gathers"), models.path("gather_nd_island"))
    assert r.returncode == 0 and "share of ops on the GPU: 33% -> 60% (better)" in r.stdout
    # more bytes cross the boundary (128 -> 256): reported, but not a regression
    assert "bytes copied between CPU and GPU per inference: 128 -> 256 (worse)" in r.stdout


def test_same_model_no_change(models):
    r = gpucompat("diff", models.path("conv_relu"), models.path("conv_relu"))
    assert r.returncode == 0 and "no change" in r.stdout


def test_the_terminal_ends_with_a_one_line_verdict(models):
    worse = gpucompat("diff", models.path("gather_nd_island"), models.path("two_gathers"))
    assert worse.returncode == 1 and worse.stdout.splitlines()[-1].startswith("REGRESSION: ")
    better = gpucompat("diff", models.path("two_gathers"), models.path("gather_nd_island"))
    assert better.stdout.splitlines()[-1].startswith("no regression: ")
    same = gpucompat("diff", models.path("conv_relu"), models.path("conv_relu"))
    assert same.stdout.splitlines()[-1] == "no regression: nothing moved"


def _fixed(models, name, tmp_path):
    """`gpucompat fix` output of a generated model (verification is fix's own suite's business)."""
    out = str(tmp_path / f"{name}_fixed.tflite")
    r = gpucompat("fix", models.path(name), "--output", out, "--no-verify")
    assert r.returncode == 0, r.stderr
    return out


def test_a_fix_that_moves_ops_onto_the_gpu_is_no_regression(models, tmp_path):
    """stb_same_bias_relu: fix folds the SPACE_TO_BATCH_ND pair into a dilated conv, 25% -> 100%
    on the GPU; more bytes now cross into the one kernel (2864 -> 8112), a cost that is printed
    and fails only past the threshold the user sets."""
    old, new = models.path("stb_same_bias_relu"), _fixed(models, "stb_same_bias_relu", tmp_path)
    r = gpucompat("diff", old, new)
    assert r.returncode == 0, r.stdout
    assert "share of ops on the GPU: 25% -> 100% (better)" in r.stdout
    assert "bytes copied between CPU and GPU per inference: 2864 -> 8112 (worse)" in r.stdout
    assert gpucompat("diff", old, new, "--cost-threshold", "3").returncode == 0  # +183% < 300%
    r = gpucompat("diff", old, new, "--cost-threshold", "0.5", "--format", "json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    regressions = [c["measure"] for c in doc["changes"] if c["regression"]]
    assert regressions == ["bytes copied between CPU and GPU per inference"]


def test_real_model_fix_passes_and_new_findings_gate_at_fail_on(real_models, tmp_path):
    """pose_detection (MediaPipe): fix folds its sparse DENSIFY -> DEQUANTIZE weights, 37% ->
    100% on the GPU in one partition. The input, now read by the GPU, brings a new IO301 info
    finding (RGB widened to RGBA): no regression at the default --fail-on error, one at
    --fail-on info."""
    old, new = str(real_models["pose_detection"]), str(tmp_path / "pose_detection_fixed.tflite")
    r = gpucompat("fix", old, "--output", new, "--no-verify", "--profile", "litert-mldrift")
    assert r.returncode == 0, r.stderr
    r = gpucompat("diff", old, new, "--profile", "litert-mldrift", "--format", "json")
    assert r.returncode == 0, r.stdout
    doc = json.loads(r.stdout)
    changes = {c["measure"]: (c["old"], c["new"], c["regression"]) for c in doc["changes"]}
    assert changes["ops on the CPU"][1] == 0 and changes["partitions after delegation"] == (2, 1, False)
    assert any(f["code"] == "IO301" and not f["regression"] for f in doc["new_findings"])
    assert gpucompat("diff", old, new, "--profile", "litert-mldrift", "--fail-on", "warning").returncode == 0
    r = gpucompat("diff", old, new, "--profile", "litert-mldrift", "--fail-on", "info")
    assert r.returncode == 1 and "IO301 info (regression)" in r.stdout
