"""The law of forms as data (issue 23): `check --profile litert-mldrift` flags every op whose form
(rules/support/forms.py) the numerics grid measured wrong on LiteRT's real GPU accelerator, including the
forms the example-keyed rules missed, leaves right forms alone, and reports a delegated form the
grid never measured as unmeasured (GPU007) instead of assuming it right. The models are one op
between a runtime input and a constant, written as TensorFlow's converter writes them
(tests/models_formlaw.py; FULLY_CONNECTED as the converter itself writes it: tests/test_form_law_converter.py)."""

import json

import numpy as np
import pytest

import models_formlaw
from cli import gpucompat
from gpucompat.ir import from_bytes
from gpucompat.rules.support import calibration
from gpucompat.rules.support.forms import form_of

UNMEASURED = "formlaw_strided_slice_step4_r4"


def _check(path, profile="litert-mldrift"):
    r = gpucompat("check", path, "--profile", profile, "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    return doc["models"][0] if "models" in doc else doc


@pytest.mark.parametrize("name", sorted(models_formlaw.WRONG))
def test_a_missed_wrong_form_is_flagged_with_its_evidence(models, name):
    rec = _check(models.path(f"formlaw_{name}"))
    found = [f for f in rec["findings"] if f["code"] == "GPU005"]
    assert len(found) == 1 and found[0]["severity"] == "error", rec["findings"]
    assert rec["ops"][found[0]["nodes"][0][1]]["placement"] == "gpu"
    message = found[0]["message"]
    assert "LiteRT 2.3.0's accelerator at fp32: cosine" in message and "max error" in message, message
    assert rec["summary"]["ops_wrong"] == 1 and rec["summary"]["ops_unmeasured"] == 0


@pytest.mark.parametrize("name", sorted(models_formlaw.RIGHT))
def test_a_right_form_is_not_flagged(models, name):
    rec = _check(models.path(f"formlaw_{name}"))
    assert rec["summary"]["ops_gpu"] == rec["summary"]["ops_total"] > 0
    assert not [f for f in rec["findings"] if f["code"] in ("GPU005", "PREC408", "GPU007")], rec["findings"]
    assert rec["summary"]["ops_wrong"] == 0 and rec["summary"]["ops_unmeasured"] == 0


def test_a_form_never_measured_is_reported_unmeasured(models):
    assert calibration.status(models_formlaw.UNMEASURED_FORM, "fp32") == "unmeasured", "the grid measures it now"
    rec = _check(models.path(UNMEASURED))
    found = [f for f in rec["findings"] if f["code"] == "GPU007"]
    assert len(found) == 1 and found[0]["severity"] == "warning", rec["findings"]
    assert f"[{models_formlaw.UNMEASURED_FORM}]" in found[0]["message"]
    assert "never measured" in found[0]["message"]
    assert rec["summary"]["ops_unmeasured"] == 1 and rec["summary"]["ops_wrong"] == 0


def test_the_terminal_counts_unmeasured_ops(models):
    r = gpucompat("check", models.path(UNMEASURED), "--profile", "litert-mldrift")
    assert "1 delegated op(s) in forms never measured on the real GPU" in r.stdout


def test_no_unmeasured_finding_under_a_profile_without_measurements(models):
    rec = _check(models.path(UNMEASURED), "gpu-current")
    assert not [f for f in rec["findings"] if f["code"] == "GPU007"]


def test_explain_names_the_unmeasured_rule():
    r = gpucompat("explain", "GPU007")
    assert r.returncode == 0 and "never measured" in r.stdout and "How to fix" in r.stdout


def _key(models, name):
    (op,) = [o for o in from_bytes(models.bytes(f"formlaw_{name}")).graphs[0].ops]
    return form_of(op)


def test_the_key_is_the_law_not_the_sizes(models):
    """Keys say ranks, which axes are 1 and which operand is constant: two ADDs of [8] with
    constants [2,1,8] and of [5,7,8] with [8] differ; the MAXIMUM and MINIMUM of the same shapes
    differ only in their op."""
    assert _key(models, "add_r1_c3") == "ADD runtime [n] with constant [n,1,n]"
    assert _key(models, "add_r3_bias") == "ADD runtime [n,n,n] with constant [n]"
    assert _key(models, "maximum_r2_c3").replace("MAXIMUM", "MINIMUM") == _key(models, "minimum_r2_c3")
    assert _key(models, "softmax_r1") == "SOFTMAX [n]"


@pytest.mark.parametrize("weights, named", [("float16", "constant float16"), ("int8", "constant int8"),
                                            ("runtime", "runtime float32")])
def test_a_fully_connected_key_names_its_weights(weights, named):
    """fp16 weights behind a DEQUANTIZE are constant float16 weights (the delegate folds the
    DEQUANTIZE), int8 weights are read by a hybrid kernel, runtime weights are a model input."""
    from ai_edge_litert import schema_py_generated as fb

    from irbuild import IRModel

    m = IRModel()
    x = m.input("x", [1, 16])
    w = np.ones((8, 16), np.float32)
    if weights == "float16":
        wt = m.op("DEQUANTIZE", [m.const("w16", w.astype(np.float16))], w.shape)
    elif weights == "int8":
        wt = m.tensor("w8", w.shape, "INT8", quantization=(0.1, 0), data=w.astype(np.int8))
    else:
        wt = m.input("w", w.shape)
    m.output(m.op("FULLY_CONNECTED", [x, wt, -1], [1, 8], options=fb.FullyConnectedOptionsT()))
    ops = from_bytes(m.bytes()).graphs[0].ops
    assert form_of(ops[-1]) == f"FULLY_CONNECTED [1,n] to [1,n] with {named} weights"


@pytest.mark.parametrize("x_shape, c_shape, wrong", [([8], [2, 1, 8], True), ([5, 7, 8], [8], False)])
def test_a_div_by_a_constant_is_judged_by_its_own_measurement(x_shape, c_shape, wrong, tmp_path):
    """TF's converter writes a DIV by a constant as a MUL; litert-torch and onnx2tf write the DIV,
    which the grid measures written op by op: [8] / constant [2,1,8] is wrong on the accelerator,
    [5,7,8] / constant [8] right."""
    from ai_edge_litert import schema_py_generated as fb

    from gpucompat import api
    from irbuild import IRModel

    m = IRModel()
    x = m.input("x", x_shape)
    c = m.const("c", np.full(c_shape, 2.0, np.float32))
    m.output(m.op("DIV", [x, c], list(np.broadcast_shapes(tuple(x_shape), tuple(c_shape))), options=fb.DivOptionsT()))
    rec = api.check(m.save(tmp_path / "div.tflite"), profile="litert-mldrift")
    found = [f for f in rec["findings"] if f["code"] in ("GPU005", "GPU007")]
    assert [f["code"] for f in found] == (["GPU005"] if wrong else []), found
    assert not wrong or "[DIV runtime [n] with constant [n,1,n]]" in found[0]["message"]


@pytest.mark.parametrize("bias, wrong", [(True, True), (False, False)])
def test_a_one_unit_fully_connected_with_runtime_weights_and_a_bias_is_wrong(bias, wrong, tmp_path):
    """FULLY_CONNECTED of a [1,4,4,16] input with runtime weights [1,16] and a constant bias: the
    accelerator's error for one unit with a bias sits at the fp32 threshold and passes it at sizes
    the grid never used (tools/borderline_forms.py), so the key is recorded wrong and check says
    GPU005; without the bias it computes right and check says nothing."""
    from ai_edge_litert import schema_py_generated as fb

    from gpucompat import api
    from irbuild import IRModel

    m = IRModel()
    x, w = m.input("x", [1, 4, 4, 16]), m.input("w", [1, 16])
    b = m.const("b", np.full([1], 0.5, np.float32)) if bias else -1
    m.output(m.op("FULLY_CONNECTED", [x, w, b], [16, 1], options=fb.FullyConnectedOptionsT()))
    rec = api.check(m.save(tmp_path / "fc.tflite"), profile="litert-mldrift")
    found = [f for f in rec["findings"] if f["code"] in ("GPU005", "GPU007")]
    assert [f["code"] for f in found] == (["GPU005"] if wrong else []), found
    key = "FULLY_CONNECTED [1,n,n,n] to [n,1] with runtime float32 weights, bias"
    assert not wrong or f"[{key}]" in found[0]["message"]
