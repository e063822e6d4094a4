"""`gpucompat verify --runner litert-gpu --localize` (gpucompat/runners/litert_gpu/localize.py) on
the models whose probes used to mislead or break it (issue 39): SELECT reading fp16 weights, whose
shader does not compile at fp32 ("Error while parsing WGSL"), fully and partly delegated, and sparse
weights (DENSIFY -> DEQUANTIZE), which LiteRT never writes. The runs on the real device need a
Vulkan device (tests/vulkan.py); the choice of tensors and of the op to blame needs none."""

import json

import numpy as np
import pytest

import models_provenance  # noqa: F401  (registers prov_select_fp16)
from cli import gpucompat
from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.rules.support import calibration
from gpucompat.rules.support.forms import form_of
from gpucompat.runners.litert_gpu import localize
from gpucompat.verification.tolerance import Tolerance
from irbuild import IRModel, conv_options, options
from modelgen import builder
from vulkan import gate

X = [1, 6, 6, 8]
WGSL = "Error while parsing WGSL"


def _select(m: IRModel, x: int) -> int:
    """MUL(SELECT(x > 0, x, fp16 constant), 2), every constant fp16 behind a DEQUANTIZE, as TF's
    converter writes `tf.where(x > 0, x, c) * 2` with fp16 weights."""
    def fp16(name, value):
        return m.op("DEQUANTIZE", [m.const(name, np.asarray(value, np.float16))], np.shape(value))

    c = fp16("c", np.random.default_rng(1).standard_normal(X))
    chosen = m.op("SELECT", [m.op("GREATER", [x, fp16("zero", 0.0)], X, "BOOL"), x, c], X)
    return m.op("MUL", [chosen, fp16("two", 2.0)], X, options=options("Mul"))


@builder("localize_select_partly")
def _select_partly() -> bytes:
    """TANH, a GATHER_ND the accelerator refuses (an identity gather), then the SELECT of fp16
    weights: partly delegated, the SELECT's partition on the GPU."""
    m = IRModel(signature="serving_default")
    tanh = m.op("TANH", [m.input("x", X)], X)
    m.output(_select(m, m.op("GATHER_ND", [tanh, m.const("indices", np.zeros((1, 1), np.int32))], X)))
    return m.bytes()


@builder("localize_select_after_tanh")
def _select_after_tanh() -> bytes:
    """TANH, then the SELECT of fp16 weights, in one GPU partition."""
    m = IRModel(signature="serving_default")
    m.output(_select(m, m.op("TANH", [m.input("x", X)], X)))
    return m.bytes()


@builder("localize_sparse_weights")
def _sparse_weights() -> bytes:
    """A 1x1 CONV_2D reading sparse fp16 weights (DENSIFY -> DEQUANTIZE, which XNNPACK unpacks
    without writing them), then TANH."""
    m = IRModel(signature="serving_default")
    w = np.zeros((4, 1, 1, 8), np.float16)
    w[np.arange(4), 0, 0, [1, 3, 5, 7]] = 0.5
    weights = m.op("DEQUANTIZE", [m.op("DENSIFY", [m.sparse_const("w", w)], w.shape, "FLOAT16")], w.shape)
    conv = m.op("CONV_2D", [m.input("x", [1, 4, 4, 8]), weights, m.const("b", np.zeros(4, np.float32))],
                [1, 4, 4, 4], options=conv_options())
    m.output(m.op("TANH", [conv], [1, 4, 4, 4]))
    return m.bytes()


def _localize(path: str) -> dict:
    """verify's JSON document on the accelerator, one run, with --localize (a failing run)."""
    r = gpucompat("verify", path, "--runner", "litert-gpu", "--runs", "1", "--localize", "--cache-dir", "",
                  "--format", "json", timeout=600)
    gate(r)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    return json.loads(r.stdout)


def test_tensors_the_runtime_never_writes_are_not_compared(models):
    """Constants' DEQUANTIZE and DENSIFY outputs are left out; graph outputs are compared in order."""
    select = ir.load(models.path("localize_select_partly")).graphs[0]
    assert [t.producer.name for t in localize.compared_tensors(select)] == ["TANH", "GATHER_ND", "SELECT", "MUL"]
    sparse = ir.load(models.path("localize_sparse_weights")).graphs[0]
    assert [t.producer.name for t in localize.compared_tensors(sparse)] == ["CONV_2D", "TANH"]


@pytest.mark.fidelity
def test_a_partly_delegated_select_of_fp16_weights_is_named_with_the_device_error(models):
    doc = _localize(models.path("localize_select_partly"))
    first = doc["first_divergent_op"]
    assert "partly delegated" in doc["device"]
    assert (first["op"], first["index"], first["placement"]) == ("SELECT", 5, "gpu"), first
    assert first["cause"].startswith(WGSL) and "vec4<f16>" in first["cause"], first


@pytest.mark.fidelity
def test_a_converted_select_of_fp16_weights_is_named_with_the_device_error(models):
    """TF's converter's own model, fully delegated: no DEQUANTIZE of its weights is blamed."""
    first = _localize(models.path("prov_select_fp16"))["first_divergent_op"]
    assert first["op"] == "SELECT" and first["cause"].startswith(WGSL), first


@pytest.mark.fidelity
def test_an_op_reading_sparse_weights_is_named(models):
    """The CONV_2D reads weights LiteRT's CPU never wrote (GPU008); no device error."""
    first = _localize(models.path("localize_sparse_weights"))["first_divergent_op"]
    assert (first["op"], first["index"], first["cause"]) == ("CONV_2D", 2, None), first


@pytest.mark.fidelity
def test_mediapipe_sparse_pose_detection_is_localized(real_models):
    """Its probes once included the DENSIFY and DEQUANTIZE outputs XNNPACK never writes, and the
    copy did not run ("basic_string::_M_construct null not valid")."""
    first = _localize(str(real_models["pose_detection"]))["first_divergent_op"]
    assert (first["op"], first["index"], first["placement"]) == ("CONV_2D", 10, "gpu"), first


def test_an_earlier_op_that_fails_with_the_logged_error_is_named(models, monkeypatch):
    """In the partition of the divergent SELECT: the GREATER (bool output, not compared) is named
    when the calibration saw its form fail with the logged error, line and column aside; the TANH,
    whose output was seen right, never is."""
    graph = ir.load(models.path("localize_select_after_tanh")).graphs[0]
    tanh, greater, select = (next(op for op in graph.ops if op.name == n) for n in ("TANH", "GREATER", "SELECT"))
    logged = f"{WGSL}: :42:3 error: cannot initialize"

    def blamed(*failing):
        table = calibration.Table({"forms": {form_of(op): {"fp32": {"error": f"{WGSL}: :7:1 error: cannot initialize"}}
                                             for op in failing}})
        monkeypatch.setattr(calibration, "for_profile", lambda profile: table)
        errors = {tanh.outputs[0].index: 0.0, select.outputs[0].index: 3.0}
        return localize._blame(graph, select.index, errors, [logged], "fp32")

    assert blamed()["op"] == "SELECT" and blamed()["cause"] == logged
    assert blamed(tanh)["op"] == "SELECT"
    named = blamed(tanh, greater)
    assert (named["op"], named["tensor"], named["max_abs_error"]) == ("GREATER", greater.outputs[0].name, None)


def test_a_copy_that_does_not_run_is_one_line(models, monkeypatch):
    """The runtime's words, without the temporary copy's path."""
    def refuse(path, *args, **kw):
        raise GpucompatError(f"{path}: LiteRT's GPU accelerator cannot run it: CompiledModel error: code=3")

    monkeypatch.setattr("gpucompat.runners.litert_gpu.infer.run_on_accelerator", refuse)
    with open(models.path("localize_select_partly"), "rb") as f:
        data = f.read()
    with pytest.raises(GpucompatError) as e:
        localize.first_divergent_op(data, [np.ones(X, np.float32)], "fp32", Tolerance(0.0, 1e-3, ""))
    assert str(e.value) == ("--localize: the copy of the model with its 4 float intermediates as outputs does not "
                            "run (LiteRT's GPU accelerator cannot run it: CompiledModel error: code=3)")
