"""Baselines: today's findings recorded, then only new findings fail the run."""

import json
import shutil

from cli import gpucompat


def test_baseline_round_trip(models, tmp_path):
    model = tmp_path / "m.tflite"
    shutil.copy(models.path("gather_nd_island"), model)
    base = tmp_path / "baseline.json"
    r = gpucompat("check", str(model), "--write-baseline", str(base), "--fail-on", "never")
    assert r.returncode == 0
    entries = json.loads(base.read_text())["findings"]
    # GATHER_ND rejected, the 1-op GPU run dropped, 2 partitions after delegation (CPU[0,1] GPU[2..4])
    assert {e["code"] for e in entries} == {"GPU001", "PRT101", "PRT102"}
    assert all(e["path"] == "m.tflite" for e in entries)
    # the same model against its baseline: nothing new, exit 0, findings marked
    r = gpucompat("check", str(model), "--baseline", str(base), "--format", "json")
    assert r.returncode == 0
    assert all(f["baselined"] for f in json.loads(r.stdout)["models"][0]["findings"])
    # a worse model under the same name: its new findings fail the run
    shutil.copy(models.path("two_gathers"), model)
    r = gpucompat("check", str(model), "--baseline", str(base), "--format", "json")
    assert r.returncode == 1
    fresh = [f for f in json.loads(r.stdout)["models"][0]["findings"] if not f["baselined"]]
    assert {f["code"] for f in fresh} >= {"GPU001"}


def test_unreadable_baseline_is_exit_2(models, tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text("{}")
    r = gpucompat("check", models.path("conv_relu"), "--baseline", str(bad))
    assert r.returncode == 2 and "baseline" in r.stderr and "Traceback" not in r.stderr
