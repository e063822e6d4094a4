"""Profiles by LiteRT release (`--profile litert-mldrift@2.2.0`): each output names the release it
describes, an unmeasured release is a usage error, and each release's measured difference from
2.3.0 is predicted (their agreement with the real wheels is tests/test_fidelity_releases.py's).
Models written with tests/irbuild.py."""

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

import gpucompat
from cli import gpucompat as run_cli
from gpucompat.errors import GpucompatError
from gpucompat.rules.support import registry
from gpucompat.rules.support.profiles.litert_mldrift_releases import RELEASES, STABLE
from irbuild import IRModel


def gather(indices: list[int], runtime_indices: bool = False) -> IRModel:
    """GATHER of rows `indices` (constant, or a runtime input of that many) of a runtime [8, 8] tensor."""
    m = IRModel()
    x = m.input("x", [8, 8])
    if runtime_indices:
        idx = m.input("idx", [len(indices)], "INT32")
    else:
        idx = m.const("idx", np.asarray(indices, np.int32))
    m.output(m.op("GATHER", [x, idx], [len(indices), 8], options=fb.GatherOptionsT()))
    return m


def arg_max(output: str) -> IRModel:
    m = IRModel()
    x = m.input("x", [1, 8, 8, 4])
    options = fb.ArgMaxOptionsT()
    options.outputType = getattr(fb.TensorType, output)
    m.output(m.op("ARG_MAX", [x, m.const("axis", np.asarray([3], np.int32))], [1, 8, 8], output, options=options))
    return m


def summary(m: IRModel, tmp_path, profile: str) -> dict:
    return gpucompat.check(m.save(tmp_path / "m.tflite"), profile=profile)["summary"]


def test_plain_litert_mldrift_is_the_stable_release_and_says_so(tmp_path):
    rec = gpucompat.check(gather([1]).save(tmp_path / "m.tflite"), profile="litert-mldrift")
    assert rec["profile"] == "litert-mldrift" and rec["release"] == STABLE == "2.3.0"
    r = run_cli("check", str(tmp_path / "m.tflite"), "--profile", "litert-mldrift")
    assert "[litert-mldrift (LiteRT 2.3.0), backend cl]" in r.stdout
    for release in RELEASES:
        rec = gpucompat.check(str(tmp_path / "m.tflite"), profile=f"litert-mldrift@{release}")
        assert rec["profile"] == f"litert-mldrift@{release}" and rec["release"] == release


def test_2_2_0_cannot_build_a_gather_of_several_constant_indices(tmp_path):
    several = summary(gather([1, 5, 2]), tmp_path, "litert-mldrift@2.2.0")
    assert several["delegation_fails"] and several["ops_gpu"] == 0
    for release in ("2.3.0", "2.4.0.dev20261026"):
        assert summary(gather([1, 5, 2]), tmp_path, f"litert-mldrift@{release}")["ops_gpu"] == 1
    assert summary(gather([4]), tmp_path, "litert-mldrift@2.2.0")["ops_gpu"] == 1
    assert summary(gather([1, 5, 2], runtime_indices=True), tmp_path, "litert-mldrift@2.2.0")["ops_gpu"] == 1


def test_the_nightly_takes_an_int64_arg_max_then_fails_to_build(tmp_path):
    nightly = summary(arg_max("INT64"), tmp_path, "litert-mldrift@2.4.0.dev20261026")
    assert nightly["delegation_fails"] and nightly["ops_gpu"] == 0
    stable = gpucompat.check(str(tmp_path / "m.tflite"), profile="litert-mldrift")
    assert not stable["summary"]["delegation_fails"]
    assert [u["op"] for u in stable["unsupported"]] == ["ARG_MAX"] and stable["unsupported"][0]["layer"] == "partition"
    assert summary(arg_max("INT32"), tmp_path, "litert-mldrift@2.4.0.dev20261026")["ops_gpu"] == 1


def test_an_unmeasured_release_is_a_usage_error(tmp_path):
    with pytest.raises(GpucompatError, match="no measured litert-mldrift release '2.1.3'"):
        registry.get("litert-mldrift@2.1.3")
    r = run_cli("check", gather([1]).save(tmp_path / "m.tflite"), "--profile", "litert-mldrift@2.1.3")
    assert r.returncode == 2 and "measured: 2.2.0, 2.3.0, 2.4.0.dev20261026" in r.stderr


def test_confirm_predicts_with_the_release_that_compiled():
    assert registry.for_release("2.2.0").name == "litert-mldrift@2.2.0"
    assert registry.for_release(STABLE).name == "litert-mldrift"
    assert registry.for_release("2.9.9").name == "litert-mldrift"  # never measured: the stable one


def test_opcode_shows_what_a_release_does_differently():
    r = run_cli("opcode", "36")
    lines = {line.split()[0]: line for line in r.stdout.splitlines()[1:]}
    assert "unlike 2.3.0: a GATHER of more than one constant index" in lines["litert-mldrift@2.2.0"]
    assert "unlike" not in lines["litert-mldrift@2.4.0.dev20261026"] and "litert-mldrift@2.3.0" not in lines
    assert "(LiteRT 2.3.0)" in lines["litert-mldrift"]
