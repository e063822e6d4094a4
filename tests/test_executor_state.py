"""Variable tensors (a full-kernel LSTM's output and cell states) in hybrid execution: never a
partition input, zero at load, carried from one run to the next on whichever side holds them, as
the reference interpreter carries them over its runs."""

import json

import pytest

from cli import gpucompat

pytestmark = pytest.mark.opencl


@pytest.mark.parametrize("profile, gpu_ops", [("gpu-current", 1), ("gpu-2019", 0)])
def test_verify_carries_lstm_state_across_runs_like_the_reference(models, profile, gpu_ops):
    # gpu-2019 takes only the basic LSTM kernel (v2): there the full kernel runs on the CPU side.
    r = gpucompat("verify", models.path("x_lstm_full_peephole"), "--runs", "6", "--profile", profile,
                  "--format", "json", "--cache-dir", "")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["passed"], doc["outputs"]
    out = doc["outputs"][0]
    assert out["max_abs_error"] <= 1e-5 * out["max_ref_abs"]
    on_gpu = "none" not in doc["device"]
    assert on_gpu == bool(gpu_ops)
