"""Each rule code that no other test names, raised on the smallest model that shows it and not
raised on its healthy twin (models written with tests/irbuild.py, no converter)."""

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

import gpucompat
from irbuild import IRModel

SHAPE = [1, 4, 4, 8]


def codes(m: IRModel, tmp_path, profile: str = "gpu-current") -> dict[str, list[dict]]:
    """The findings of checking the model, by code."""
    rec = gpucompat.check(m.save(tmp_path / "m.tflite"), profile=profile)
    assert rec["error"] is None, rec["error"]
    out: dict[str, list[dict]] = {}
    for f in rec["findings"]:
        out.setdefault(f["code"], []).append(f)
    return out


def binary(name: str, same_input: bool) -> IRModel:
    """`name`(x, x) or `name`(x, y) of two model inputs."""
    m = IRModel()
    x = m.input("x", SHAPE)
    y = x if same_input else m.input("y", SHAPE)
    m.output(m.op(name, [x, y], SHAPE))
    return m


def test_gpu002_an_op_that_fails_when_the_gpu_graph_is_built(tmp_path):
    """SUB of a tensor with itself passes partitioning and is refused at Parse: the whole
    delegation fails (model_builder.cc: no identical inputs but for ADD and MUL)."""
    found = codes(binary("SUB", same_input=True), tmp_path)
    (f,) = found["GPU002"]
    assert f["severity"] == "error" and "whole delegation fails" in f["message"] and f["nodes"] == [[0, 0]]
    assert "GPU002" not in codes(binary("SUB", same_input=False), tmp_path)


def reshape_by(shape_from_add: bool) -> IRModel:
    """x reshaped to its own shape: computed at run time by SHAPE -> ADD (ADD does not fold at
    prepare, so the RESHAPE's output is dynamic), or given as a constant."""
    m = IRModel()
    x = m.input("x", SHAPE)
    if shape_from_add:
        s = m.op("SHAPE", [x], [4], "INT32", options=fb.ShapeOptionsT())
        s = m.op("ADD", [s, m.const("zero", np.zeros(4, np.int32))], [4], "INT32")
    else:
        s = m.const("shape", np.asarray(SHAPE, np.int32))
    m.output(m.op("TANH", [m.op("RESHAPE", [x, s], SHAPE)], SHAPE))
    return m


def test_gpu003_a_dynamic_tensor_stops_delegation(tmp_path):
    found = codes(reshape_by(shape_from_add=True), tmp_path)
    (f,) = found["GPU003"]
    assert "nothing in this subgraph is delegated" in f["message"]
    assert "GPU003" not in codes(reshape_by(shape_from_add=False), tmp_path)


def test_hyg501_an_op_nothing_reads(tmp_path):
    m = IRModel()
    x = m.input("x", SHAPE)
    m.op("LOGISTIC", [x], SHAPE)  # read by nothing
    m.output(m.op("TANH", [x], SHAPE))
    (f,) = codes(m, tmp_path)["HYG501"]
    assert "LOGISTIC" in f["message"] and f["nodes"] == [[0, 0]]

    healthy = IRModel()
    x = healthy.input("x", SHAPE)
    healthy.output(healthy.op("TANH", [healthy.op("LOGISTIC", [x], SHAPE)], SHAPE))
    assert "HYG501" not in codes(healthy, tmp_path)


def quantized_add(int8: bool) -> IRModel:
    """An ADD of an input and a constant, int8 with quantization parameters or float."""
    m = IRModel()
    dtype, q = ("INT8", (0.05, 0)) if int8 else ("FLOAT32", None)
    x = m.input("x", SHAPE, dtype, quantization=q)
    c = m.const("c", np.ones(8, np.int8 if int8 else np.float32), quantization=q)
    m.output(m.op("ADD", [x, c], SHAPE, dtype, quantization=q, options=fb.AddOptionsT()))
    return m


@pytest.mark.parametrize("code", ["IO302", "PREC401"])
def test_quantized_tensors_on_the_gpu(code, tmp_path):
    """IO302: the int8 input and output cross the GPU boundary and are converted on the CPU on
    every invoke; PREC401: the int8 ADD runs on the GPU in float emulation."""
    found = codes(quantized_add(int8=True), tmp_path)
    assert found.get(code), sorted(found)
    if code == "IO302":
        assert {("into" in f["message"], "out of" in f["message"]) for f in found[code]} == {(True, False),
                                                                                           (False, True)}
    assert code not in codes(quantized_add(int8=False), tmp_path)
