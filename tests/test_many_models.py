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


def test_piped_output_is_not_wrapped_and_model_names_stay_distinct(models, tmp_path, monkeypatch):
    # a CI log: stdout is a pipe, and COLUMNS (often 80 there) must not wrap sentences or cut names
    monkeypatch.setenv("COLUMNS", "60")
    folder = tmp_path / "a_team_folder_whose_name_alone_is_longer_than_a_narrow_terminal"
    folder.mkdir()
    names = ["mobile_segmenter_with_gather_nd_island_v2.tflite", "mobile_segmenter_with_two_gathers_v2.tflite"]
    for src, name in zip(("gather_nd_island", "two_gathers"), names, strict=True):
        shutil.copy(models.path(src), folder / name)
    text = gpucompat("check", str(folder)).stdout
    lines = text.splitlines()
    doc = json.loads(gpucompat("check", str(folder), "--format", "json").stdout)
    for rec in doc["models"]:
        for f in rec["findings"]:  # every finding on one line of its own, however long
            assert f"  {f['code']} {f['severity']}: {f['message']}" in lines
    assert f"2 models in {folder}/" in lines
    rows = [line for line in lines if line.startswith("│ ")]
    assert [row.split("│")[1].strip() for row in rows] == names
    assert "…" not in text


def test_help_breaks_no_word(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = gpucompat("check", "--help").stdout
    words = text.split()
    for whole in ("--max-delegated-partitions", "<terminal|json|sarif|github|model-explorer|html>",
                  "<error|warning|info|never>", "[tool.gpucompat]"):
        assert whole in words, whole
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
