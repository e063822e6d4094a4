"""Every source-level hint (gpucompat/attribution/hints.py) is proven: the code before and after,
exported by the real converter (TF's for Keras, litert-torch for PyTorch); check shows the hint
beside the rejected op of the before version, in the layer or module that wrote it; the after
version computes the same outputs on the reference interpreter, and LiteRT's GPU accelerator takes
it whole and computes those outputs."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat.attribution.hints import HINTS
from gpucompat.confirm import compare, runner
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from models_attribution import HINT_LAYER
from side_env import run_side
from vulkan import without_device

PROFILE = "litert-mldrift"  # the profile of LiteRT's accelerator, where each hint is proven


def _record(path: str) -> dict:
    proc = gpucompat("check", path, "--profile", PROFILE, "--format", "json", "--fail-on", "never")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["models"][0]


def _outputs(path: str) -> list[np.ndarray]:
    with open(path, "rb") as f:
        data = f.read()
    interpreter = reference_interpreter(data, path)
    feeds = [np.random.default_rng(0).standard_normal(d["shape"]).astype(d["dtype"])
             for d in interpreter.get_input_details()]
    return run_reference(interpreter, feeds)


def _prove(key: str, before: str, after: str, where: str) -> None:
    hint = next(h for h in HINTS if h.key == key)
    rec = _record(before)
    (group,) = [u for u in rec["unsupported"] if u["op"] == hint.op]
    assert [h["key"] for h in group["hints"]] == [key]
    assert group["sources"] == [where]
    fixed = _record(after)
    assert fixed["unsupported"] == [] and fixed["summary"]["fully_delegated"]
    for a, b in zip(_outputs(before), _outputs(after), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    try:
        seen_before, seen_after = compare.confirm([before, after], runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))
    assert hint.op in seen_before.observed.rejected
    assert seen_after.observed.fully_delegated and not seen_after.disagreements
    proc = gpucompat("verify", after, "--runner", "litert-gpu", timeout=600)
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout + proc.stderr


def _keras(models, key: str) -> None:
    name = "hint_" + key.replace("-", "_")
    _prove(key, models.path(f"{name}.before"), models.path(f"{name}.after"), HINT_LAYER)


def test_keras_gather_nd_fixed(models):
    _keras(models, "keras-gather-nd-fixed")


def test_keras_argmax_int32(models):
    _keras(models, "keras-argmax-int64")


def test_torch_gather_fixed(tmp_path):
    run_side("torch", "torch_hints.py", str(tmp_path))
    key = "torch-gather-fixed"
    _prove(key, str(tmp_path / f"{key}.before.tflite"), str(tmp_path / f"{key}.after.tflite"), "pick")


@pytest.mark.parametrize("hint", HINTS, ids=lambda h: h.key)
def test_every_hint_names_its_proof_here(hint):
    assert callable(globals().get(hint.proof)), f"{hint.key}: no test {hint.proof} proves it"
