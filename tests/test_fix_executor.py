"""`fix` verifies on the OpenCL executor too: each backend's verdict in the JSON, the executor's
fp32 tolerance, "not run" with the reason where the executor cannot run a model, and a failure
the executor alone sees."""

import json
import re

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.fixing import run
from gpucompat.opencl import device
from gpucompat.opencl import lowering as lowerings  # importing it fills the registry of lowerings
from gpucompat.opencl.device import CLError
from gpucompat.opencl.ops import elementwise
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from gpucompat.runners import OPENCL, REFERENCE, Job, NotRun
from gpucompat.verification.fix_proof import verify, verify_everywhere
from gpucompat.verification.placements import placements_by_subgraph

pytestmark = pytest.mark.opencl


def test_fix_json_lists_both_backends_and_the_executor_runs_the_fixed_model(models, tmp_path):
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path("stb_same_bias_relu"), "-o", str(out), "--format", "json")
    assert r.returncode == 0, r.stderr
    v = json.loads(r.stdout)["verification"]
    assert [b["backend"] for b in v["backends"]] == ["reference-interpreter", "opencl-executor"]
    ref, exe = v["backends"]
    assert v["ok"] and ref["ok"] and exe["ok"] and exe["not_run"] is None and exe["error"] is None
    assert v["backend"] == "reference-interpreter" and v["tolerance"] == ref["tolerance"] == "relative 1e-05"
    assert exe["tolerance"] == "executor fp32: atol 1e-05, rtol 0.001" and len(exe["outputs"]) == 1
    assert exe["outputs"][0]["bound"] > 1e-5  # atol + rtol x max|original|


def test_exact_rewrites_are_held_to_the_executor_fp32_tolerance_there():
    # 0 on the reference interpreter; on the executor verify's fp32 default, 1e-5 + 1e-3 x max|ref|:
    # 5.1e-4 for a max of 0.5, 3.01e-3 for a max of 3 (NaN ignored).
    assert REFERENCE.tolerance({"exact"}).bound(np.array([3.0])) == 0.0
    tol = OPENCL.tolerance({"exact"})
    assert abs(tol.bound(np.array([0.5, -0.25])) - 5.1e-4) < 1e-15
    assert abs(tol.bound(np.array([-3.0, np.nan])) - 3.01e-3) < 1e-15
    assert REFERENCE.tolerance({"exact", "equivalent"}).bound(np.array([-3.0])) == 3.0 * 1e-5


def _no_device(spec=None, cache_dir=None, early=False):
    raise CLError("no OpenCL device found (is pocl-binary-distribution installed?)")


@pytest.mark.parametrize("take_away, reason", [
    (lambda mp: mp.delitem(lowerings.LOWERINGS, "CONV_2D"), "op#0 CONV_2D: the executor has no kernel for it"),
    (lambda mp: mp.setattr(device, "choose", _no_device), "no OpenCL device found"),
])
def test_a_model_the_executor_cannot_run_is_not_run_with_the_reason(models, monkeypatch, take_away, reason):
    # Test-only: the executor loses its CONV_2D lowering, or the machine its OpenCL device; the
    # reference interpreter still verifies and the fix passes.
    take_away(monkeypatch)
    fix = run.fix_file(models.path("stb_same_bias_relu"), _all_rewrites(), registry.get("gpu-current"), Options())
    result = run.verify_fix(fix)
    ref, exe = result.results
    assert ref.ok and ref.not_run is None and ref.outputs
    assert reason in exe.not_run and exe.outputs == [] and exe.error is None and exe.ok
    assert result.ok and result.record()["backends"][1]["not_run"] == exe.not_run


def test_a_fault_only_the_executor_has_fails_the_fix_there(models, monkeypatch):
    # Test-only fault: the executor's ADD subtracts. The reference interpreter is untouched; the
    # fixed model's bias ADD runs on the executor, against the original on the reference interpreter.
    monkeypatch.setitem(elementwise.BINARY, "ADD", elementwise.BINARY["SUB"])
    fix = run.fix_file(models.path("stb_same_bias_relu"), _all_rewrites(), registry.get("gpu-current"), Options())
    ref, exe = run.verify_fix(fix).results
    assert ref.ok and exe.not_run is None and exe.error is None and not fix.verification.ok
    assert exe.outputs[0].max_abs_diff > exe.outputs[0].bound


def test_shapes_other_than_the_declared_one_are_not_run(models):
    data = models.bytes("conv_relu")
    model = ir.from_bytes(data)
    x = model.graphs[0].inputs[0]
    other = (2, *x.shape[1:])
    opened = OPENCL.open(Job(model, data, placements_by_subgraph(model, "gpu-current"), [], cache_dir=""))
    declared = r"runs at \(2, .*\), the executor only at its declared shape"
    with pytest.raises(NotRun, match=rf"input {re.escape(repr(x.name))} {declared}"):
        opened.run([np.zeros(other, np.float32)])


def _all_rewrites():
    from gpucompat import rewrites as catalogue

    return catalogue.select(None, None, False)


def test_verify_everywhere_on_an_unchanged_model_passes_on_both(models):
    data = models.bytes("conv_relu")
    result = verify_everywhere(data, data, {"exact"})
    assert [r.backend for r in result.results] == ["reference-interpreter", "opencl-executor"]
    assert all(r.ok and r.not_run is None for r in result.results)
    assert verify(data, data, {"exact"}).backend == "reference-interpreter"
