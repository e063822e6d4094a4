"""Every kernel family against the reference interpreter, on models holding one-op variants over
parameter grids (tests/models_kernels.py), with every op forced onto the executor.

Judged by the verification package's one tolerance rule (gpucompat/verification/tolerance.py), with
numbers of their own, one op at a time: fp32 must match to 1e-5 of the output's magnitude (a
hundred times tighter than verify's whole-model default); fp16 storage (float arithmetic) to 1e-2
of it.
"""

import numpy as np
import pytest

import models_kernels  # noqa: F401  (registers builders)
from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.tolerance import Tolerance, magnitude, max_abs_error

# One op at a time: the package's rule with numbers of its own (docs/verify.md).
TOLERANCE = {"fp32": Tolerance(1e-5, 1e-5), "fp16": Tolerance(1e-2, 1e-2)}
FAMILIES = ["k_conv", "k_depthwise", "k_elementwise", "k_pool", "k_reduce", "k_movement", "k_resize", "k_dense",
            "k_fusion", "k_tconv_bias"]


pytestmark = pytest.mark.opencl


@pytest.fixture(scope="module")
def runtimes():
    device = choose()
    return {p: Runtime(device, p) for p in TOLERANCE}


def assert_within(got: np.ndarray, want: np.ndarray, precision: str, what: str) -> None:
    """`got` within TOLERANCE[precision] of `want` (shapes equal; NaN on one side fails)."""
    assert got.shape == want.shape, f"{what}: shape executor={got.shape} | reference={want.shape}"
    assert not TOLERANCE[precision].failing(got, want).any(), \
        f"{what}: max error {max_abs_error(got, want):.3g} (max |ref| {magnitude(want):.3g})"


def compare_all_gpu(models, runtime: Runtime, name: str, feeds: list[np.ndarray] | None = None) -> None:
    """helper_test_op: run `name` with every op on OpenCL and check each output (named variant)
    against the reference interpreter, within TOLERANCE."""
    data = models.bytes(name)
    model = ir.from_bytes(data)
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtime)
    feeds = seeded_feeds(model.graphs[0]) if feeds is None else feeds
    ref = run_reference(reference_interpreter(data, name), feeds)
    bad = []
    for t, got, want in zip(model.graphs[0].outputs, runner.run(feeds), ref):
        try:
            assert_within(got, want, runtime.precision, t.name)
        except AssertionError as e:
            bad.append(str(e))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", FAMILIES)
def test_kernel_family_matches_reference(models, runtimes, name, precision):
    compare_all_gpu(models, runtimes[precision], name)


def indexed_inputs(model: ir.Model) -> list[np.ndarray]:
    """k_indexed's inputs: floats N(0, 1); gather indices [4] in [0, 5); one-hot indices [2, 3] in [0, 6)."""
    gen = np.random.default_rng(1)
    limits = {(4,): 5, (2, 3): 6}
    return [gen.integers(0, limits[t.shape], t.shape).astype(np.int32) if t.dtype_name == "INT32"
            else gen.standard_normal(t.shape).astype(np.float32) for t in model.graphs[0].inputs]


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_runtime_indexed_ops_match_reference(models, runtimes, precision):
    feeds = indexed_inputs(ir.from_bytes(models.bytes("k_indexed")))
    compare_all_gpu(models, runtimes[precision], "k_indexed", feeds)
