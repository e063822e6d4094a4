"""Many models at once: --jobs gives the same records as one process, and --profile a,b compares
delegate generations side by side."""

import json
import shutil

from cli import gpucompat


def test_jobs_give_the_same_records(models, tmp_path):
    names = ["conv_relu", "gather_nd_island", "two_gathers", "reshapes", "conv_3_5_8"]
    for n in names:
        shutil.copy(models.path(n), tmp_path / f"{n}.tflite")
    one = gpucompat("check", str(tmp_path), "--format", "json")
    two = gpucompat("check", str(tmp_path), "--format", "json", "--jobs", "2")
    assert one.returncode == two.returncode == 1
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert [r["path"] for r in json.loads(two.stdout)["models"]] == sorted(str(tmp_path / f"{n}.tflite") for n in names)
    table = gpucompat("check", str(tmp_path), "--jobs", "2").stdout
    assert "5 models" in table and "2/6 (33%)" in table  # the summary row of two_gathers


def test_profiles_side_by_side(models):
    r = gpucompat("check", models.path("two_gathers"), "--profile", "gpu-current,litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    [entry] = doc["comparison"]
    assert [p["profile"] for p in entry["profiles"]] == ["gpu-current", "litert-mldrift"]
    # neither generation has a GATHER_ND parser (model_builder.cc, ml_drift_delegate/tflite/model_builder.cc):
    # the same 2 of 6 ops on the GPU
    assert [(p["ops_gpu"], p["ops_total"]) for p in entry["profiles"]] == [(2, 6), (2, 6)]
    text = gpucompat("check", models.path("two_gathers"), "--profile", "gpu-current,litert-mldrift").stdout
    assert "profiles side by side" in text and "litert-mldrift" in text
