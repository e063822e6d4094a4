"""The failure classes of the real-app set (issue 22) on converter-built models of each form
(tests/models_realapp.py): what `check`, `fix` and `verify` say. Whether the prediction equals
the real accelerator on these models is the fidelity suite's job (tests/test_fidelity.py compiles
every builder there); the facts asserted here were observed on it (ai-edge-litert 2.3.0)."""

import json

import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.prepare import prepare_failure


def _check(path: str, *args: str) -> tuple[int, dict]:
    r = gpucompat("check", path, "--profile", "litert-mldrift", "--format", "json", *args)
    assert r.returncode in (0, 1), r.stderr
    (rec,) = json.loads(r.stdout)["models"]
    return r.returncode, rec


def _fix(path: str, out, *args: str) -> dict:
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--format", "json", *args, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


# Class 1: a constant with zero elements is a constant (the runtime reads it from the file).

def test_a_zero_element_shape_operand_is_a_constant(models):
    model = ir.load(models.path("ra_zero_element_shape"))
    reshape = next(op for op in model.graphs[0].ops if op.name == "RESHAPE")
    shape = reshape.input(1)
    assert shape.shape == (0,) and len(shape.buffer.data) == 0
    assert shape.is_constant and shape.data().shape == (0,)
    again = ir.from_bytes(ir.to_bytes(model))  # the writer keeps the empty data vector
    assert next(op for op in again.graphs[0].ops if op.name == "RESHAPE").input(1).is_constant


def test_check_takes_the_reshape_and_keeps_the_gate_open(models):
    for name, on_gpu in (("ra_zero_element_shape", 3), ("ra_zero_element_shape_dynamic_batch", 4)):
        _, rec = _check(models.path(name))
        assert not any(s["gate"] for s in rec["subgraphs"]), name
        assert [u["op"] for u in rec["unsupported"]] == ["MUL"], name  # a runtime scalar times a tensor
        assert rec["summary"]["ops_gpu"] == on_gpu and not rec["summary"]["delegation_fails"], name


def test_freeze_shapes_freezes_a_model_with_a_zero_element_constant(models, tmp_path):
    doc = _fix(models.path("ra_zero_element_shape_dynamic_batch"), tmp_path / "frozen.tflite",
               "--input-shape", "serving_default_args_0:0=2,8")
    assert [e["rewrite"] for e in doc["applied"]][:1] == ["freeze-shapes"]
    assert doc["verification"]["backends"][0]["ok"]  # the reference interpreter, at the frozen shape
    frozen = ir.load(str(tmp_path / "frozen.tflite"))
    assert frozen.graphs[0].inputs[0].signature == (2, 8)


@pytest.mark.opencl
def test_verify_runs_a_model_with_a_zero_element_constant(models):
    r = gpucompat("verify", models.path("ra_zero_element_shape"), "--profile", "litert-mldrift", timeout=600)
    assert r.returncode == 0, r.stderr
    assert "internal error" not in r.stderr and "PASSED" in r.stdout


# SLICE of a tensor with a dynamic dimension: the kernel makes its output dynamic.

def test_a_slice_of_a_dynamic_batch_gates_the_model(models):
    _, rec = _check(models.path("ra_slice_of_dynamic_batch"))
    (gate,) = [s["gate"] for s in rec["subgraphs"] if s["gate"]]
    assert "op#1 SLICE" in gate and rec["summary"]["ops_gpu"] == 0


# Class 2: fp16 weights in a partly delegated model are listed as the runtime lists them.

def test_fp16_dequantize_is_listed_where_the_runtime_lists_it(models):
    _, rec = _check(models.path("rw_fp16_partial"))
    listed = {u["op"]: u for u in rec["unsupported"]}
    assert set(listed) == {"DEQUANTIZE", "GATHER_ND"}
    dq = listed["DEQUANTIZE"]
    assert dq["runtime_message"] == "" and dq["layer"] == "partition"
    assert dq["nodes"] == [[0, i] for i in rec["subgraphs"][0]["fp16_dequantize"]]
    assert all(not o["supported"] and o["placement"] == "cpu" for o in rec["ops"] if [0, o["index"]] in dq["nodes"])
    # it holds nothing back: no error finding
    assert not any(f["code"] == "GPU001" and "DEQUANTIZE" in f["message"] for f in rec["findings"])
    terminal = gpucompat("check", models.path("rw_fp16_partial"), "--profile", "litert-mldrift")
    assert "DEQUANTIZE" in terminal.stdout.split("ops the GPU delegate rejects")[1]


def test_fp16_dequantize_of_a_whole_model_is_not_listed(models):
    _, rec = _check(models.path("rw_fp16_cnn"))
    assert rec["summary"]["fully_delegated"] and rec["unsupported"] == []
    assert all(o["supported"] for o in rec["ops"])


# Class 3: a model the interpreter cannot prepare at its stored shape gets no GPU ops.

def test_a_model_that_cannot_be_prepared_gets_no_gpu_and_an_error(models):
    code, rec = _check(models.path("ra_audio_placeholder_shape"))
    assert code == 1
    s = rec["summary"]
    assert s["ops_gpu"] == 0 and s["delegation_fails"]
    assert "Node number 2 (CONV_2D) failed to prepare" in s["failure"]
    (f,) = [f for f in rec["findings"] if f["code"] == "GPU006"]
    assert f["severity"] == "error" and f["nodes"] == [[0, 2]]
    assert "input is 1 wide" in f["message"] and "--input-shape serving_default_args_0:0=" in f["message"]
    assert rec["what_if"] == []  # accepting an op gains nothing while nothing runs


def test_an_output_without_elements_fails_on_the_accelerator_only(models):
    _, rec = _check(models.path("ra_audio_placeholder_zero_width"))
    assert rec["summary"]["ops_gpu"] == 0 and "crashes" in rec["summary"]["failure"]
    (f,) = [f for f in rec["findings"] if f["code"] == "GPU006"]
    assert "[1, 1, 0, 8] has no elements" in f["message"] and f["nodes"] == [[0, 2]]
    r = gpucompat("check", models.path("ra_audio_placeholder_zero_width"), "--format", "json")  # gpu-current
    (classic,) = json.loads(r.stdout)["models"]
    assert classic["summary"]["failure"] is None and not any(f["code"] == "GPU006" for f in classic["findings"])


def test_the_same_front_end_at_a_real_shape_prepares(models):
    _, rec = _check(models.path("ra_audio_fixed_shape"))
    assert rec["summary"]["fully_delegated"] and not any(f["code"] == "GPU006" for f in rec["findings"])


def test_prepare_failures_agree_with_the_cpu_interpreter(models):
    """The CPU interpreter (no delegate) allocates what prepare_failure passes and refuses what it
    refuses, on the forms above and their working neighbours."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    for name in ("ra_audio_placeholder_shape", "ra_audio_placeholder_zero_width", "ra_audio_fixed_shape",
                 "ra_zero_element_shape",
                 "ra_causal_mask_2d", "freeze_flatten", "rw_dynamic_batch_shape_pack"):
        ours = prepare_failure(ir.load(models.path(name)).graphs[0])
        interpreter = Interpreter(model_content=models.bytes(name),
                                  experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        try:
            interpreter.allocate_tensors()
            refused = None
        except RuntimeError as e:
            refused = str(e)
        assert (ours is None or ours.empty) == (refused is None), (name, ours, refused)
        if refused is not None:
            assert ours.runtime_message in refused


# Class 7: plain `fix` on a model the shapes keep off the GPU says what to pass.

def test_plain_fix_on_a_gated_model_names_input_shape_and_unsafe_fixes(models, tmp_path):
    doc = _fix(models.path("rw_dynamic_batch_shape_pack"), tmp_path / "out.tflite", "--no-verify")
    assert doc["applied"] == []
    advice = " ".join(doc["advice"])
    assert "becomes dynamic" in advice and "--unsafe-fixes" in advice
    assert "--input-shape serving_default_args_0:0=N," in advice
    text = gpucompat("fix", models.path("rw_dynamic_batch_shape_pack"), "--dry-run", "--profile", "litert-mldrift")
    assert "nothing to fix" not in text.stdout and "--input-shape" in text.stdout


def test_plain_fix_on_an_unpreparable_model_names_input_shape(models, tmp_path):
    doc = _fix(models.path("ra_audio_placeholder_shape"), tmp_path / "out.tflite", "--no-verify")
    advice = " ".join(doc["advice"])
    assert "cannot be prepared" in advice and "--input-shape serving_default_args_0:0=N,N" in advice
    assert "--unsafe-fixes" not in advice  # batch 1 alone leaves the width at 1


def test_fix_of_a_model_that_runs_gives_no_shape_advice(models, tmp_path):
    assert _fix(models.path("rw_fp16_partial"), tmp_path / "out.tflite", "--dry-run")["advice"] == []


# Class 8: a SELECT_V2 condition laid out with a batch the batch-1 output does not have.

@pytest.mark.parametrize("name", ["ra_causal_mask_2d", "ra_causal_mask_1d"])
def test_a_condition_with_a_gpu_batch_fails_the_whole_compile(models, name):
    _, rec = _check(models.path(name))
    assert rec["summary"]["ops_gpu"] == 0 and rec["summary"]["delegation_fails"]
    (select,) = [u for u in rec["unsupported"] if u["op"] == "SELECT_V2"]
    assert select["layer"] == "parse" and select["runtime_message"] == "Unable to parse bc coord for BATCH axis"
    assert any(f["code"] == "GPU002" and "SELECT_V2" in f["message"] for f in rec["findings"])


@pytest.mark.parametrize("name", ["ra_causal_mask_3d", "ra_causal_mask_batch_2"])
def test_a_condition_the_output_batch_covers_compiles(models, name):
    _, rec = _check(models.path(name))
    assert rec["summary"]["fully_delegated"] and rec["unsupported"] == []
