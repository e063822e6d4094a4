"""What onnx2tf writes (tests/side/onnx2tf_attribution.py: an ONNX graph named as torch.onnx.export
names it, converted by onnx2tf's own Python): the ONNX node names it keeps are the ops' sources,
and `fix` replaces what LiteRT's GPU accelerator rejects in it (the RELU_0_TO_1 onnx2tf writes for
a HardSigmoid's clamp, the version-4 TRANSPOSE_CONV of a ConvTranspose with its Relu fused) with
ops it takes and computes the same."""

import json

import pytest

from cli import gpucompat
from gpucompat.confirm import compare, runner
from side_env import run_side
from vulkan import without_device


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("onnx2tf")
    run_side("onnx2tf", "onnx2tf_attribution.py", str(out), cwd=str(out))
    return str(out / "net_float32.tflite")


def _check(path: str, *args: str) -> dict:
    r = gpucompat("check", path, "--format", "json", "--fail-on", "never", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["models"][0]


def test_onnx2tf_keeps_some_onnx_node_names_and_those_are_the_source(converted):
    sources = {o["op"]: o["source"] for o in _check(converted)["ops"]}
    assert (sources["MIRROR_PAD"]["framework"], sources["MIRROR_PAD"]["path"]) == ("onnx", "stem/Pad")
    assert sources["SOFTMAX"]["path"] == "layers.0/attn/Softmax"
    # the first convolution's name is dropped by onnx2tf (its TF call's generated layer is all that is left)
    assert [o["source"]["path"] for o in _check(converted)["ops"] if o["op"] == "CONV_2D"][0] is None


def test_fix_replaces_what_onnx2tf_writes_and_the_accelerator_rejects(converted, tmp_path):
    before = _check(converted, "--profile", "litert-mldrift")
    assert {u["op"]: u["reason"] for u in before["unsupported"]} == {
        "RELU_0_TO_1": "no GPU implementation of this op",
        "TRANSPOSE_CONV": "op version 4 is above the supported maximum 3"}
    fixed = str(tmp_path / "fixed.tflite")
    r = gpucompat("fix", converted, "-o", fixed, "--profile", "litert-mldrift", "--format", "json", timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert sorted(a["rewrite"] for a in doc["applied"]) == ["substitute-relu-0-to-1",
                                                            "substitute-transpose-conv-activation"]
    assert doc["verification"]["ok"]
    after = _check(fixed, "--profile", "litert-mldrift")
    assert after["summary"]["fully_delegated"] and after["summary"]["ops_wrong"] == 0
    try:
        (seen,) = compare.confirm([fixed], runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))
    assert seen.observed.fully_delegated and not seen.disagreements
    proof = gpucompat("verify", fixed, "--runner", "litert-gpu", timeout=600)
    assert proof.returncode == 0 and "PASSED" in proof.stdout, proof.stdout + proof.stderr
