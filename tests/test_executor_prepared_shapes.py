"""Hybrid execution on the shapes the runtime prepares, not the declared ones: with a dynamic batch,
SPACE_TO_BATCH_ND (block 2x2) declares batch 1 for its output and prepares batch 4, and the
delegate is built on the prepared graph."""

import json

import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.placements import placements
from test_executor_kernels import assert_within

pytestmark = pytest.mark.opencl


def test_verify_runs_the_space_to_batch_model_that_fix_folds(models):
    # The model `gpucompat fix` rewrites (SPACE_TO_BATCH_ND -> CONV_2D -> BATCH_TO_SPACE_ND) must
    # verify before the fix too: the conv runs on the GPU between two CPU partitions.
    r = gpucompat("verify", models.path("stb_same_bias_relu"), "--runs", "3", "--format", "json",
                  "--cache-dir", "")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["passed"] and doc["outputs"][0]["max_abs_error"] <= 1e-5 * doc["outputs"][0]["max_ref_abs"]


def test_the_runner_uses_prepared_shapes_and_leaves_the_callers_model_alone(models):
    data = models.bytes("stb_stride2")
    model = ir.from_bytes(data)
    declared = [t.shape for t in model.graphs[0].tensors]
    where = placements(model, "gpu-current")
    assert where == ["cpu", "gpu", "cpu"]
    runner = HybridRunner(model, where, Runtime(choose(), "fp32"))

    assert [t.shape for t in model.graphs[0].tensors] == declared  # `fix` may write this model
    conv = runner.model.graphs[0].ops[1]
    # 12x12 input, block 2x2, no padding: 4 sub-images of 6x6; 3x3 VALID conv at stride 2 -> 2x2.
    assert conv.inputs[0].shape == (4, 6, 6, 4) and conv.outputs[0].shape == (4, 2, 2, 4)
    feeds = seeded_feeds(model.graphs[0])
    want = run_reference(reference_interpreter(data, "stb_stride2"), feeds)
    for got, ref in zip(runner.run(feeds), want):
        assert_within(got, ref, "fp32", "output")
