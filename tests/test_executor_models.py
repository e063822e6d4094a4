"""Whole models on the executor: quantized tensors in float with the delegate's quantize-and-
dequantize adjustments, fp16 weights folded at load, and hybrid execution with a CPU island."""

import numpy as np
import pytest

import models_kernels  # noqa: F401  (registers builders)
from gpucompat import ir
from gpucompat.check import check_model
from gpucompat.errors import GpucompatError
from gpucompat.opencl.device import choose
from gpucompat.opencl.executor import UnsupportedOp
from gpucompat.opencl.hybrid import HybridRunner, reference_interpreter, run_reference
from gpucompat.opencl.runtime import Runtime
from gpucompat.rules import registry
from gpucompat.rules.profile import Options
from test_executor_kernels import compare_all_gpu, seeded_inputs


@pytest.fixture(scope="module")
def runtimes():
    device = choose()
    return {p: Runtime(device, p) for p in ("fp32", "fp16")}


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["k_quant", "k_fp16"])
def test_quantized_and_fp16_weight_models(models, runtimes, name, precision):
    compare_all_gpu(models, runtimes[precision], name)


def test_fp16_dequantize_is_folded_at_load(models, runtimes):
    model = ir.from_bytes(models.bytes("k_fp16"))
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])
    ran = [op.name for seg in runner.segments for op in seg.ops]
    assert "DEQUANTIZE" not in ran and "CONV_2D" in ran


def test_hybrid_runs_the_cpu_island_on_the_reference_interpreter(models, runtimes):
    data = models.bytes("gather_nd_island")
    model = ir.from_bytes(data)
    placements = [o.placement for o in check_model(model, registry.get("gpu-current"), Options()).ops]
    runner = HybridRunner(model, placements, runtimes["fp32"])
    kinds = [s.placement for s in runner.segments]
    # GATHER_ND is never delegated, so at least one CPU run sits next to a GPU run.
    assert "cpu" in kinds and "gpu" in kinds
    gather = next(s for s in runner.segments if any(op.name == "GATHER_ND" for op in s.ops))
    assert gather.placement == "cpu"
    feeds = seeded_inputs(model)
    want = run_reference(reference_interpreter(data, "reference"), feeds)
    for got, ref in zip(runner.run(feeds), want):
        np.testing.assert_allclose(got, ref, atol=1e-5, rtol=1e-5)


def test_an_op_without_kernel_is_named(models, runtimes):
    model = ir.from_bytes(models.bytes("gather_nd_island"))
    with pytest.raises(UnsupportedOp, match=r"op#1 GATHER_ND: the executor has no kernel"):
        HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])


def test_several_subgraphs_are_refused_in_one_line(models, runtimes):
    model = ir.from_bytes(models.bytes("conv_relu"))
    model.graphs.append(model.graphs[0])
    with pytest.raises(GpucompatError, match="2 subgraphs"):
        HybridRunner(model, ["gpu"] * 3, runtimes["fp32"])
