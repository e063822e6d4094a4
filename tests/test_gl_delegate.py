"""The gl-delegate profile (rules/support/profiles/gl_delegate.py): the classic GL delegate as MediaPipe
builds it, held to what was measured on it (rules/support/calibration/gl_delegate.json), and how it
differs from gpu-current --backend gl (V2's GL path). Models are written op by op (tests/irbuild.py);
no GL is needed here (tests/test_fidelity_gl.py runs the delegate itself)."""

import json

import numpy as np
import pytest

from cli import gpucompat
from irbuild import IRModel, options

INT8 = dict(quantization=(0.05, 0))


def _save(m: IRModel, tmp_path, name: str) -> str:
    return m.save(tmp_path / f"{name}.tflite")


def _check(path: str, *args: str) -> dict:
    r = gpucompat("check", path, "--format", "json", *args)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["models"][0]


def _gpu_ops(rec: dict) -> int:
    return sum(1 for o in rec["ops"] if o["placement"] == "gpu")


@pytest.fixture(scope="module")
def int8_add(tmp_path_factory) -> str:
    """QUANTIZE -> int8 ADD -> DEQUANTIZE: a full-int8 graph's core."""
    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    q = m.op("QUANTIZE", [x], [1, 4, 4, 8], "INT8", **INT8)
    c = m.const("c", np.ones((1, 4, 4, 8), np.int8), **INT8)
    s = m.op("ADD", [q, c], [1, 4, 4, 8], "INT8", options=options("Add"), **INT8)
    m.output(m.op("DEQUANTIZE", [s], [1, 4, 4, 8]))
    return _save(m, tmp_path_factory.mktemp("gl"), "int8_add")


def test_quantized_ops_stay_on_the_cpu_whatever_the_app_asks(int8_add):
    """MediaPipe builds the GL delegate with allow_quant_ops=false: V2's GL path (gpu-current)
    takes the int8 graph, this one none of it."""
    assert _gpu_ops(_check(int8_add, "--profile", "gpu-current", "--backend", "gl")) == 3
    rec = _check(int8_add, "--profile", "gl-delegate")
    assert _gpu_ops(rec) == 0
    assert {o["op"] for o in rec["ops"] if o["placement"] == "cpu"} == {"QUANTIZE", "ADD", "DEQUANTIZE"}


def test_the_profile_judges_on_gl_by_default_and_refuses_other_backends(int8_add):
    assert _check(int8_add, "--profile", "gl-delegate")["options"]["backend"] == "gl"
    r = gpucompat("check", int8_add, "--profile", "gl-delegate", "--backend", "cl")
    assert r.returncode == 2 and r.stderr.strip() == "gpucompat: profile gl-delegate has no cl backend (it has: gl)"


def test_split_is_taken_and_fails_the_build_where_v2_leaves_it_out(tmp_path):
    """V2 leaves SPLIT out when OpenCL is missing (delegate.cc); V1 takes it into the partition and
    its build fails: no GL shader for it, so the whole model runs on the CPU."""
    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    a, b = m.split("SPLIT", [m.const("axis", np.array(3, np.int32)), x], [[1, 4, 4, 4], [1, 4, 4, 4]],
                   options=options("Split", numSplits=2))
    m.output(m.op("ADD", [a, b], [1, 4, 4, 4], options=options("Add")))
    path = _save(m, tmp_path, "split")
    v2 = _check(path, "--profile", "gpu-current", "--backend", "gl")
    assert _gpu_ops(v2) == 1 and not v2["summary"]["delegation_fails"]
    v1 = _check(path, "--profile", "gl-delegate")
    assert _gpu_ops(v1) == 0 and v1["summary"]["delegation_fails"]
    (split,) = [o for o in v1["ops"] if o["op"] == "SPLIT"]
    assert split["layer"] == "backend"


def _shape_then(tmp_path, name: str, op: str, opts) -> str:
    """The SHAPE of a static input, read by `op` with a constant."""
    m = IRModel()
    x = m.input("x", [1, 8, 8, 4])
    shape = m.op("SHAPE", [x], [4], "INT32", options=options("Shape", outType=2))
    m.output(m.op(op, [shape, m.const("c", np.array([1, 2, 2, 2], np.int32))], [4], "INT32", options=opts))
    return _save(m, tmp_path, name)


@pytest.mark.parametrize("op, opts, fails", [("MUL", options("Mul"), True), ("ADD", options("Add"), False)])
def test_an_int_op_on_a_shape_computed_at_prepare_is_taken_and_fails_on_gl(tmp_path, op, opts, fails):
    """The interpreter computes the SHAPE of a static tensor (and a MUL of it) while it prepares;
    the delegate's type filter judges only run-time tensors, so on gl the int MUL is taken and its
    build fails (measured: "Input tensor is not found in the graph."); an ADD is not taken. On cl,
    gpu-current leaves both on the CPU (not measured there)."""
    path = _shape_then(tmp_path, op.lower(), op, opts)
    for args in (("--profile", "gl-delegate"), ("--profile", "gpu-current", "--backend", "gl")):
        rec = _check(path, *args)
        assert rec["summary"]["delegation_fails"] is fails, args
    assert not _check(path, "--profile", "gpu-current")["summary"]["delegation_fails"]


def test_without_the_delegate_s_set_up_confirm_and_verify_say_what_is_missing(tmp_path, int8_add):
    """No set-up: one line naming the missing file and what the delegate needs, exit 2."""
    env = {"GPUCOMPAT_GL_DIR": str(tmp_path)}
    for args in (("confirm", "--delegate", "gl", int8_add), ("verify", int8_add, "--runner", "gl-delegate")):
        r = gpucompat(*args, env=env)
        assert r.returncode == 2, r.stderr
        (line,) = r.stderr.strip().splitlines()
        assert f"{tmp_path}/libgl_shim.so: no such file" in line and "EGL" in line and "Traceback" not in r.stderr


def test_confirm_refuses_an_unknown_delegate(int8_add):
    r = gpucompat("confirm", "--delegate", "metal", int8_add)
    assert r.returncode == 2 and r.stderr.strip() == "gpucompat: --delegate must be one of accelerator, gl, got 'metal'"
