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
