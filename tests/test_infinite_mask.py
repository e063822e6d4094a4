"""An attention mask filled with -inf (litert-torch's causal and sliding-window masks): LiteRT's GPU
accelerator computes a SOFTMAX row whose first four elements are -inf as NaN. `check` raises
PREC410 under the accelerator's profile and `fix` stores the fill as -30000 (finite-mask-fill),
with the same probabilities on the CPU; on the accelerator (needs a Vulkan device) the original
comes out NaN where the CPU is finite and the fixed model matches the CPU. Models written with
tests/irbuild.py."""

import json

import numpy as np
import pytest

import models_rules as mr
from cli import gpucompat
from gpucompat import ir
from gpucompat.confirm.runner import NoDevice
from gpucompat.runners.litert_gpu.infer import run_on_accelerator
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from vulkan import without_device


@pytest.fixture(scope="module")
def masked(tmp_path_factory):
    """(original, fixed) paths: the -inf mask and what fix makes of it."""
    folder = tmp_path_factory.mktemp("mask")
    path = mr.masked_attention(-np.inf).save(folder / "masked.tflite")
    out = folder / "fixed.tflite"
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--rewrite", "finite-mask-fill",
                  "--format", "json", "--verify-on", "litert-gpu")
    doc = json.loads(r.stdout)
    assert r.returncode in (0, 1) and [e["rewrite"] for e in doc["applied"]] == ["finite-mask-fill"], r.stderr
    return path, str(out), doc


def feeds() -> list[np.ndarray]:
    """Scores N(0, 1) and a mask that hides the first 8 keys of every row (a window past them)."""
    keep = np.ones([1, 1, 32, 64], bool)
    keep[..., :8] = False
    return [np.random.default_rng(0).standard_normal([1, 1, 32, 64]).astype(np.float32), keep]


def test_fix_stores_a_finite_fill_with_the_same_probabilities(masked):
    path, out, doc = masked
    reference = doc["verification"]["backends"][0]
    assert reference["backend"] == "reference-interpreter" and reference["ok"]
    fill = [t for t in ir.load(out).graphs[0].tensors if t.is_constant and t.shape == () and t.data() < 0]
    assert [float(t.data()) for t in fill] == [-30000.0]
    want = run_reference(reference_interpreter(open(path, "rb").read(), "original"), feeds())[0]
    got = run_reference(reference_interpreter(open(out, "rb").read(), "fixed"), feeds())[0]
    np.testing.assert_array_equal(got, want)
    assert not np.isnan(want).any() and np.all(want[..., :8] == 0)


@pytest.mark.fidelity
def test_the_accelerator_computes_nan_rows_before_and_the_cpu_s_values_after(masked):
    path, out, _ = masked
    want = run_reference(reference_interpreter(open(path, "rb").read(), "original"), feeds())[0]
    runs = {}
    for name, model in (("original", path), ("fixed", out)):
        graph = ir.load(model).graphs[0]
        try:
            runs[name] = run_on_accelerator(model, [feeds()], [t.index for t in graph.inputs],
                                            [t.index for t in graph.outputs]).outputs[0][0]
        except NoDevice as e:
            without_device(str(e))
    assert np.isnan(runs["original"]).all(axis=-1).all(), "every row starts with four -inf: NaN rows"
    np.testing.assert_allclose(runs["fixed"], want, atol=1e-5)
