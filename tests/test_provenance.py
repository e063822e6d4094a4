"""Where an operand comes from is part of its form (issue 39). Models as TensorFlow's converter
writes them (tests/models_provenance.py): fp16 weights put every float constant behind a
DEQUANTIZE, and LiteRT's accelerator computes a SELECT or a class-token CONCATENATION reading one
as zeros on GPUs with fp16 shaders, where the float32 twin is right; a 1x1 convolution with
dynamic-range int8 weights at stride 2 is wrong too. `check` flags each with its partition,
`fix` repairs each with an exact rewrite, and the real accelerator confirms both."""

import json

import numpy as np
import pytest

import models_provenance  # noqa: F401  (registers the prov_* models)
import vulkan
from cli import gpucompat
from gpucompat import ir
from gpucompat.ir import opcodes
from gpucompat.rules.support import calibration, registry
from gpucompat.rules.support.forms import form_of, judged

MLDRIFT = ("--profile", "litert-mldrift")
# model -> (the op computed wrongly, the rewrite that repairs it)
WRONG = {"prov_select_fp16": ("SELECT", "float32-constant"),
         "prov_class_token_fp16": ("CONCATENATION", "float32-constant"),
         "prov_shortcut_int8": ("CONV_2D", "subsample-1x1-conv")}


def _check(path: str) -> dict:
    r = gpucompat("check", path, *MLDRIFT, "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["models"][0]


def _keys(path: str, op: str) -> list[str]:
    return [form_of(o) for o in ir.load(path).graphs[0].ops if o.name == op]


def test_an_fp16_constant_is_keyed_apart_from_its_float32_twin(models):
    (fp16,) = _keys(models.path("prov_select_fp16"), "SELECT")
    (fp32,) = _keys(models.path("prov_select_fp32"), "SELECT")
    assert fp16 == "SELECT runtime bool [1,n,n,n], runtime [1,n,n,n], fp16 constant [1,n,n,n]"
    assert fp32 == "SELECT runtime bool [1,n,n,n], runtime [1,n,n,n], constant [1,n,n,n]"


@pytest.mark.parametrize("name", sorted(WRONG))
def test_check_flags_the_wrong_op_with_its_partition(models, name):
    op, _ = WRONG[name]
    rec = _check(models.path(name))
    found = [f for f in rec["findings"] if f["code"] == "GPU005"]
    assert [rec["ops"][f["nodes"][0][1]]["op"] for f in found] == [op], rec["findings"]
    message = found[0]["message"]
    assert "GPU partition 0" in message and "which reaches the graph outputs 'PartitionedCall:0'" in message
    assert rec["summary"]["ops_wrong"] == 1


def test_a_shader_the_runtime_cannot_build_is_named_with_the_gpus_it_fails_on(models):
    (found,) = [f for f in _check(models.path("prov_select_fp16"))["findings"] if f["code"] == "GPU005"]
    assert "on GPUs with fp16 shaders" in found["message"], found["message"]
    assert "Error while parsing WGSL" in found["message"], found["message"]


def test_the_float32_twin_is_measured_right(models):
    rec = _check(models.path("prov_select_fp32"))
    assert rec["summary"]["ops_gpu"] == rec["summary"]["ops_total"]
    assert rec["summary"]["ops_wrong"] == 0 and rec["summary"]["ops_unmeasured"] == 0, rec["findings"]


def test_every_op_type_the_profile_delegates_has_a_measured_form():
    """An op type the GPU takes with no form in the table is one `check` could only call
    unmeasured: the grid must measure at least one form of each (custom ops excepted: the CPU
    interpreter has no kernel for them to compare with, so theirs stay GPU007)."""
    measured = {key.split(" ", 1)[0] for key in calibration.load()["forms"]}
    delegated = {opcodes.name(code) for code in registry.get("litert-mldrift").ops}
    assert sorted(delegated - measured) == []


@pytest.mark.parametrize("name", sorted(WRONG))
def test_fix_repairs_the_wrong_op_and_says_what_it_cost(models, tmp_path, name):
    op, rewrite = WRONG[name]
    out = tmp_path / f"{name}.fixed.tflite"
    r = gpucompat("fix", models.path(name), "-o", str(out), *MLDRIFT, "--format", "json", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert rewrite in [a["rewrite"] for a in doc["applied"]], doc["not_applied"]
    if rewrite == "float32-constant":  # the op now reads its constant stored as float32
        (fixed,) = [o for o in ir.load(str(out)).graphs[0].ops if o.name == op]
        assert [t.dtype_name for t in fixed.present_inputs if t.is_constant] == ["FLOAT32"]
    assert {"size_bytes"} <= doc["before"].keys() & doc["after"].keys()  # the before/after sizes: its cost
    assert _check(str(out))["summary"]["ops_wrong"] == 0


@pytest.mark.fidelity
@pytest.mark.parametrize("name", sorted(WRONG))
def test_the_accelerator_computes_the_original_wrongly_and_the_fixed_model_right(models, tmp_path, name):
    out = tmp_path / f"{name}.fixed.tflite"
    fixed = gpucompat("fix", models.path(name), "-o", str(out), *MLDRIFT, "--no-verify", timeout=600)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    before = gpucompat("verify", models.path(name), "--runner", "litert-gpu", *MLDRIFT, timeout=600)
    vulkan.gate(before)
    after = gpucompat("verify", str(out), "--runner", "litert-gpu", *MLDRIFT, timeout=600)
    assert before.returncode == 1 and "FAILED" in before.stdout, before.stdout + before.stderr
    assert after.returncode == 0 and "PASSED" in after.stdout, after.stdout + after.stderr
    if name.endswith("_fp16"):  # the shader the runtime cannot build is named as the cause
        assert "the runtime logged: Error while parsing WGSL" in before.stdout, before.stdout


def test_a_dequantized_constant_is_judged_through_its_reader(models):
    """The DEQUANTIZE of a constant is folded by the delegate: it has no form of its own."""
    graph = ir.load(models.path("prov_select_fp16")).graphs[0]
    assert [o.name for o in graph.ops if not judged(o)] == ["DEQUANTIZE"] * 3


def test_verify_lists_the_outputs_a_wrong_op_s_partition_spoils(models):
    """What verify and fix say beside a pass on the executor: the op known wrong on the real GPU,
    and the graph outputs its partition reaches, suspect there too."""
    from gpucompat.verification.real_gpu_forms import summary, unproven_ops

    (found,) = unproven_ops(ir.load(models.path("prov_select_fp16")))
    assert (found.op, found.status, found.suspect) == ("SELECT", "wrong", ("PartitionedCall:0",))
    assert found.record()["suspect_outputs"] == ["PartitionedCall:0"]
    assert "the outputs their GPU partitions reach are suspect there: 'PartitionedCall:0'" in summary([found])


@pytest.mark.parametrize("stored", [np.float16, np.float32])
def test_a_slice_of_data_in_the_file_is_keyed_apart_from_a_slice_of_a_tensor(tmp_path, stored):
    """The delegate slices a constant itself (a positional table cut to the sequence); the
    accelerator computes that STRIDED_SLICE wrongly where the same slice of a runtime tensor is
    measured right, so its key names the constant and, never measured, it is GPU007."""
    from gpucompat.calibrate.grid import _ints, options_of
    from gpucompat.ir.build import Sketch

    s = Sketch()
    table = s.const("table", np.ones((1, 6, 8), stored))
    if stored is np.float16:
        table = s.op("DEQUANTIZE", [table], (1, 6, 8))
    cut = s.op("STRIDED_SLICE", [table, s.const("b", _ints(0, 0, 0)), s.const("e", _ints(1, 4, 8)),
                                 s.const("s", _ints(1, 1, 1))], (1, 4, 8), options=options_of("StridedSlice"))
    s.output(s.op("ADD", [s.input("x", (1, 4, 8)), cut], (1, 4, 8), options=options_of("Add")))
    path = tmp_path / "sliced.tflite"
    path.write_bytes(s.to_bytes())
    kind = "fp16 constant" if stored is np.float16 else "constant"
    assert f"STRIDED_SLICE rank 3 on axes 1 of {kind}" in [form_of(o) for o in ir.load(str(path)).graphs[0].ops]
    found = [f for f in _check(str(path))["findings"] if f["code"] == "GPU007"]
    assert [f"of {kind}]" in f["message"] for f in found] == [True], found
