"""Right at the GPU's default precision: `check --inputs` finds where values leave fp16's range,
`verify --precision fp16 --inputs` fails where an fp16 GPU would, `fix` (fp16-safe-layernorm)
rewrites the converter's LayerNorm so it passes. The models are Keras encoders and LayerNorms as
TensorFlow's converter writes them (models_fp16.py), on inputs N(0, 1) x 10 and x 1000."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from models_fp16 import scaled_input


def _npz(models, name: str, scale: float, tmp_path) -> str:
    path = tmp_path / f"{name}_x{scale:g}.npz"
    np.savez(path, **scaled_input(models.path(name), scale))
    return str(path)


def _findings(*args) -> list[dict]:
    r = gpucompat("check", *args, "--select", "PREC", "--format", "json", timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["models"][0]["findings"]


def _ops(path: str) -> list[str]:
    return [op.name for op in ir.from_bytes(Path(path).read_bytes(), path).graphs[0].ops]


def _verify(path: str, *args) -> dict:
    r = gpucompat("verify", path, "--cache-dir", "", "--format", "json", *args, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def test_check_inputs_finds_the_layernorm_square_at_1000_and_nothing_at_10(models, tmp_path):
    path = models.path("fp16_vit_encoder")
    first_square = _ops(path).index("SQUARED_DIFFERENCE")
    found = _findings(path, "--inputs", _npz(models, "fp16_vit_encoder", 1000, tmp_path))
    overflow = [f for f in found if f["code"] == "PREC403"]
    # every LayerNorm of the encoder (2 blocks x 2, and the final one) overflows where its square starts
    assert len(overflow) == _ops(path).count("SQUARED_DIFFERENCE") == 5
    first = next(f for f in overflow if f"op#{first_square} SQUARED_DIFFERENCE" in f["message"])
    assert first["severity"] == "error" and "65504" in first["message"] and "fp16-safe-layernorm" in first["message"]
    magnitude = float(first["message"].split(" reaches ")[1].split()[0])
    assert magnitude > 65504
    assert _findings(path, "--inputs", _npz(models, "fp16_vit_encoder", 10, tmp_path)) == []


def test_without_data_the_unscaled_variance_and_unguarded_exp_are_warnings(models):
    variance = [f for f in _findings(models.path("fp16_layernorm")) if f["code"] == "PREC406"]
    assert len(variance) == 1 and variance[0]["severity"] == "warning"
    assert "data would confirm" in variance[0]["message"] and "LayerNorm" in variance[0]["message"]
    assert _findings(models.path("fp16_layernorm_scaled")) == []
    exps = [f for f in _findings(models.path("fp16_exp_softmax")) if f["code"] == "PREC407"]
    assert len(exps) == 1 and "op#0 EXP" in exps[0]["message"]
    assert _findings(models.path("fp16_softmax")) == []  # the SOFTMAX op subtracts the max on the GPU


def test_check_inputs_judges_exp_logits_and_the_scaled_layernorm(models, tmp_path):
    exp = _findings(models.path("fp16_exp_softmax"), "--inputs", _npz(models, "fp16_exp_softmax", 20, tmp_path))
    assert [f["code"] for f in exp] == ["PREC403"] and "exp of logits" in exp[0]["message"]
    assert _findings(models.path("fp16_exp_softmax"), "--inputs", _npz(models, "fp16_exp_softmax", 1, tmp_path)) == []
    scaled = models.path("fp16_layernorm_scaled")
    assert _findings(scaled, "--inputs", _npz(models, "fp16_layernorm_scaled", 1000, tmp_path)) == []


@pytest.mark.opencl
def test_verify_fp16_fails_the_encoder_at_1000_fix_rewrites_it_and_the_fix_passes(models, tmp_path):
    path = models.path("fp16_vit_encoder")
    big, small = _npz(models, "fp16_vit_encoder", 1000, tmp_path), _npz(models, "fp16_vit_encoder", 10, tmp_path)
    broken = _verify(path, "--precision", "fp16", "--inputs", big)
    assert not broken["passed"] and broken["runs"] == 4
    assert _verify(path, "--precision", "fp16", "--inputs", small)["passed"]
    assert _verify(path, "--inputs", big)["passed"]  # at fp32 the same graph is right

    fixed = str(tmp_path / "fixed.tflite")
    r = gpucompat("fix", path, "-o", fixed, "--inputs", big, "--format", "json", timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    applied = [e for e in json.dumps(doc).split('"') if e == "fp16-safe-layernorm"]
    assert applied and doc["verification"]["ok"]
    assert _ops(fixed).count("REDUCE_MAX") == 5
    for precision in ("fp16", "fp32"):
        assert _verify(fixed, "--precision", precision, "--inputs", big)["passed"]
    assert _findings(fixed, "--inputs", big) == []


@pytest.mark.opencl
def test_the_layernorm_litert_torch_writes_is_found_rewritten_and_right_at_fp16(models, tmp_path):
    """torch.nn.LayerNorm in litert-torch's form (the reduced axes dropped, a RESHAPE back): the
    finding without data names the rewrite, fp16 breaks at |x| ~ 1000, `fix` rewrites it, and the
    result is right at fp16 and at fp32."""
    path = models.path("fp16_layernorm_torch_form")
    static = [f for f in _findings(path) if f["code"] == "PREC406"]
    assert len(static) == 1 and "fp16-safe-layernorm" in static[0]["message"]
    big = _npz(models, "fp16_layernorm_torch_form", 1000, tmp_path)
    assert not _verify(path, "--precision", "fp16", "--inputs", big)["passed"]

    fixed = str(tmp_path / "fixed.tflite")
    r = gpucompat("fix", path, "-o", fixed, "--inputs", big, "--format", "json", timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [a["rewrite"] for a in doc["applied"]] == ["fp16-safe-layernorm"] and doc["verification"]["ok"]
    assert _ops(fixed).count("REDUCE_MAX") == 1
    for precision in ("fp16", "fp32"):
        assert _verify(fixed, "--precision", precision, "--inputs", big)["passed"]


@pytest.mark.opencl
def test_executor_fp16_rounds_fused_intermediates_like_half(models, tmp_path):
    """The fused x * 1000 + 1 -> RELU -> * 0.001 chain at |x| ~ 100: the executor's fp16 output is
    numpy's float16 arithmetic step by step, inf where the intermediate passes 65504."""
    from gpucompat.verification.hybrid import HybridRunner, open_runtime
    from gpucompat.verification.placements import placements_by_subgraph
    from gpucompat.verification.session import Settings

    path = models.path("fp16_fused_overflow")
    data = Path(path).read_bytes()
    model = ir.from_bytes(data, path)
    where = placements_by_subgraph(model, "gpu-current")
    runner = HybridRunner(model, where[0], open_runtime(Settings(precision="fp16", cache_dir=""), data), called=where)
    x = (np.random.default_rng(0).standard_normal(model.graphs[0].inputs[0].shape) * 100).astype(np.float32)
    got = runner.run([x])[0]
    h = np.float16
    with np.errstate(over="ignore"):
        want = np.maximum(x.astype(h) * h(1000) + h(1), h(0)) * h(0.001)
    assert np.isinf(want).any() and np.array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    assert np.allclose(got[finite], want[finite].astype(np.float32), rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("problem, make", [
    ("no such file", lambda d, name: str(d / "missing.npz")),
    ("no model input is named extra",
     lambda d, name: _save(d, {name: np.zeros((2, 1, 16, 32), np.float32), "extra": np.zeros(1)})),
    ("needs (samples, 1, 16, 32)", lambda d, name: _save(d, {name: np.zeros((2, 16, 31), np.float32)})),
    ("not a readable .npz", lambda d, name: _write(d / "bad.npz", b"not a zip")),
])
def test_bad_inputs_file_is_one_line_and_exit_2(models, tmp_path, problem, make):
    path = models.path("fp16_layernorm")
    name = ir.from_bytes(Path(path).read_bytes(), path).graphs[0].inputs[0].name
    npz = make(tmp_path, name)
    for command in (["check"], ["verify", "--cache-dir", ""]):
        r = gpucompat(*command, path, "--inputs", npz, timeout=300)
        assert r.returncode == 2 and problem in r.stderr and npz in r.stderr, (command, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_inputs_by_index_and_by_rows_of_batch_one(models, tmp_path):
    """Keys "0" or numpy's arr_0; an input of batch 1 takes [samples, 16, 32] rows too."""
    from gpucompat.npz_inputs import load_samples

    graph = ir.from_bytes(models.bytes("fp16_layernorm")).graphs[0]
    rows = np.arange(3 * 16 * 32, dtype=np.float32).reshape(3, 16, 32)
    by_index = load_samples(_save(tmp_path, {"0": rows}), graph.inputs)
    np.savez(tmp_path / "positional.npz", rows[:, None])
    positional = load_samples(str(tmp_path / "positional.npz"), graph.inputs)
    assert len(by_index) == len(positional) == 3
    assert all(np.array_equal(a[0], b[0]) and a[0].shape == (1, 16, 32) for a, b in zip(by_index, positional))


def test_check_imports_neither_tensorflow_nor_pyopencl_and_no_interpreter_without_inputs(models, tmp_path):
    from models_verdict import FLIP_INPUT

    encoder, classifier = models.path("fp16_vit_encoder"), models.path("verdict_fp16_flip")
    npz = _npz(models, "fp16_vit_encoder", 10, tmp_path)
    flip = _save(tmp_path, {"0": FLIP_INPUT[None]})  # PREC409's fp16 emulation runs on a classifier
    for path, extra, banned in ((encoder, [], ("tensorflow", "pyopencl", "ai_edge_litert.interpreter")),
                                (encoder, ["--inputs", npz], ("tensorflow", "pyopencl")),
                                (classifier, ["--inputs", flip], ("tensorflow", "pyopencl"))):
        probe = ("import sys; from gpucompat.cli import main; sys.argv=['gpucompat','check',*sys.argv[1:]]\n"
                 "try:\n    main()\nexcept SystemExit:\n    pass\n"
                 f"bad = [m for m in {banned!r} if m in sys.modules]\n"
                 "assert not bad, bad")
        r = subprocess.run([sys.executable, "-c", probe, path, *extra], capture_output=True, text=True, cwd="/")
        assert r.returncode == 0, (extra, r.stderr)


def _save(directory, arrays: dict) -> str:
    path = directory / "inputs.npz"
    np.savez(path, **arrays)
    return str(path)


def _write(path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.mark.opencl
def test_a_cpu_computed_variance_entering_the_gpu_is_an_overflow_too(models, tmp_path):
    """gpu-2020 keeps the BERT-like encoder's MEAN on the CPU and takes the ADD(eps) after it: at
    |x| ~ 1000 the variance it hands over is past 65504, stored as inf on the GPU."""
    path = models.path("fp16_bert_encoder")
    big = _npz(models, "fp16_bert_encoder", 1000, tmp_path)
    found = _findings(path, "--profile", "gpu-2020", "--inputs", big)
    assert found and all(f["code"] == "PREC403" and "from the CPU" in f["message"] for f in found)
    assert not _verify(path, "--profile", "gpu-2020", "--precision", "fp16", "--inputs", big)["passed"]


def test_long_accumulation_and_underflow_on_data(models, tmp_path):
    mean = _findings(models.path("fp16_wide_mean"), "--inputs", _npz(models, "fp16_wide_mean", 100, tmp_path))
    assert [f["code"] for f in mean] == ["PREC404"] and "op#0 MEAN" in mean[0]["message"]
    assert _findings(models.path("fp16_wide_mean"), "--inputs", _npz(models, "fp16_wide_mean", 1, tmp_path)) == []
    tiny = _findings(models.path("fp16_tiny_product"), "--inputs", _npz(models, "fp16_tiny_product", 1, tmp_path))
    assert [f["code"] for f in tiny] == ["PREC405"] and "op#0 MUL" in tiny[0]["message"]
