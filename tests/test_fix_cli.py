"""`gpucompat fix` as a user runs it: exit codes, JSON contract, atomic and protected writes,
idempotence, metadata kept, failed verification named and nothing written."""

import json
import os
import shutil

from cli import gpucompat
from gpucompat import ir
from gpucompat.fixing import run
from gpucompat.rewrites.engine import Match, Rewrite
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from roundtrip import structure


def test_fix_writes_a_fully_delegated_model_and_reports_json(models, tmp_path):
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path("stb_same_bias_relu"), "-o", str(out), "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema_version"] == 1 and doc["output"] == str(out)
    assert [a["rewrite"] for a in doc["applied"]] == ["fold-space-to-batch"]
    assert doc["applied"][0]["safety"] == "equivalent" and len(doc["applied"][0]["nodes"]) == 3
    assert doc["before"]["fully_delegated"] is False and doc["after"]["fully_delegated"] is True
    assert doc["after"]["partitions_delegated"] == 1
    assert doc["verification"]["ok"] is True
    names = [op.name for op in ir.load(str(out)).graphs[0].ops]
    assert names == ["CONV_2D", "ADD"]  # STB and BTS gone; the bias ADD (with its RELU) stays


def test_refuses_to_overwrite_the_input_unless_in_place(models, tmp_path):
    path = tmp_path / "m.tflite"
    shutil.copy(models.path("stb_valid_odd"), path)
    before = path.read_bytes()
    r = gpucompat("fix", str(path), "-o", str(path))
    assert r.returncode == 2 and "refusing to overwrite" in r.stderr
    assert path.read_bytes() == before
    r = gpucompat("fix", str(path), "--in-place")
    assert r.returncode == 0, r.stderr
    assert "SPACE_TO_BATCH_ND" not in [op.name for op in ir.load(str(path)).graphs[0].ops]
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".gpucompat-")]


def test_dry_run_writes_nothing_and_output_is_required(models, tmp_path):
    r = gpucompat("fix", models.path("stb_valid_odd"), "--dry-run")
    assert r.returncode == 0 and "fold-space-to-batch" in r.stdout
    assert os.listdir(tmp_path) == []
    r = gpucompat("fix", models.path("stb_valid_odd"))
    assert r.returncode == 2 and "--output" in r.stderr


def test_unknown_rewrite_and_signature_rewrite_without_unsafe_are_usage_errors(models):
    r = gpucompat("fix", models.path("stb_valid_odd"), "--dry-run", "--rewrite", "no-such")
    assert r.returncode == 2 and "unknown rewrite 'no-such'" in r.stderr


def test_refusals_are_reported_with_reasons(models, tmp_path):
    r = gpucompat("fix", models.path("stb_stride2"), "-o", str(tmp_path / "o.tflite"), "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["applied"] == [] and doc["verification"] is None
    assert {"rewrite": "fold-space-to-batch", "candidate": "op#0 SPACE_TO_BATCH_ND 'SpaceToBatchND'",
            "reason": "conv stride 2"} in doc["not_applied"]


def test_fixing_a_fixed_model_changes_nothing(models, tmp_path):
    once, twice = tmp_path / "once.tflite", tmp_path / "twice.tflite"
    assert gpucompat("fix", models.path("stb_1d"), "-o", str(once)).returncode == 0
    r = gpucompat("fix", str(once), "-o", str(twice), "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["applied"] == []
    assert twice.read_bytes() == once.read_bytes()


def test_nothing_to_fix_says_so_briefly_and_writes_an_identical_copy(models, tmp_path):
    model = models.path("stb_stride2")  # a stride-2 conv between the pair: the fold refuses it
    out = tmp_path / "o.tflite"
    r = gpucompat("fix", model, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "not applied" not in r.stdout and "candidate left alone (-v lists them)" in r.stdout
    assert f"nothing to fix; wrote an identical copy to {out}" in r.stdout
    with open(model, "rb") as f:
        assert out.read_bytes() == f.read()
    r = gpucompat("fix", model, "--dry-run", "-v")
    assert "not applied fold-space-to-batch at op#0 SPACE_TO_BATCH_ND 'SpaceToBatchND': conv stride 2" in r.stdout
    assert r.stdout.rstrip().endswith("nothing to fix")


def test_a_format_fix_cannot_write_is_a_usage_error(models, tmp_path):
    for fmt in ("sarif", "github", "model-explorer"):
        r = gpucompat("fix", models.path("stb_valid_odd"), "--dry-run", "--format", fmt)
        assert r.returncode == 2 and r.stderr.startswith(f"gpucompat: --format {fmt}: fix writes terminal or json"), fmt
        assert r.stdout == "" and len(r.stderr.splitlines()) == 1, fmt
        assert gpucompat("verify", models.path("stb_valid_odd"), "--format", fmt).returncode == 2


def test_metadata_and_signatures_are_kept(models, tmp_path):
    out = tmp_path / "o.tflite"
    assert gpucompat("fix", models.path("stb_depthwise"), "-o", str(out)).returncode == 0
    original, fixed = ir.load(models.path("stb_depthwise")), ir.load(str(out))
    kept = {k: v for k, v in original.metadata().items() if k != "min_runtime_version"}
    assert kept and {k: fixed.metadata()[k] for k in kept} == kept  # min_runtime_version rises: see
    assert set(fixed.metadata()) == set(original.metadata())  # test_fix_runtime_version.py
    want, got = structure(original), structure(fixed)
    assert [s[:2] for s in got["signatures"]] == [s[:2] for s in want["signatures"]]
    assert [n for n, _ in got["signatures"][0][2]] == [n for n, _ in want["signatures"][0][2]]
    assert got["description"] == want["description"]


class _Negate(Rewrite):
    """A deliberately wrong "exact" rewrite: gives every CONV_2D a SIGN_BIT activation."""

    name, safety, priority, summary = "negate", "exact", 1, "wrong on purpose"

    def candidates(self, graph, ctx):
        return [op for op in graph.ops if op.name == "CONV_2D" and op.options.fusedActivationFunction != 5]

    def check(self, op, ctx):
        return Match(op, [op])

    def rewrite(self, match, ctx):
        match.anchor.options.fusedActivationFunction = 5  # SIGN_BIT: changes every output


def test_failed_verification_names_the_rewrite(models, tmp_path):
    prof, opts = registry.get("gpu-current"), Options()
    rewrites = [_Negate()]
    fix = run.fix_file(models.path("conv_relu"), rewrites, prof, opts)
    assert fix.changed and not run.verify_fix(fix).ok
    assert run.blame(fix, rewrites, prof, opts) == ["negate"]
