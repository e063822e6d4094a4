"""Partition inputs whose channels are not whole slices (an RGB image) are written to the device
as the host holds them and laid out in PHWC4 there (opencl/executor.py _unpadded_input, reindex.cl
from_bhwc): every value must land in its place. The model passes each input through MUL by 1 (an
exact op), so the outputs are the inputs: exactly in fp32, rounded to half in fp16."""

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from irbuild import IRModel, options
from modelgen import builder

pytestmark = pytest.mark.opencl

SHAPES = ([2, 5, 7, 3], [1, 4, 3, 6], [3, 9], [1, 6, 5, 8])  # RGB and batch 2, two slices, rank 2, whole slices


@builder("k_unpadded_inputs")
def k_unpadded_inputs() -> bytes:
    """MUL(x, 1) of one input per shape of SHAPES."""
    m = IRModel()
    one = m.const("one", np.float32(1.0))
    m.output(*(m.op("MUL", [m.input(f"x{i}", shape), one], shape, options=options("Mul"))
               for i, shape in enumerate(SHAPES)))
    return m.bytes()


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_inputs_land_in_place(models, precision):
    model = ir.from_bytes(models.bytes("k_unpadded_inputs"))
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), Runtime(choose(), precision))
    assert len(runner.parts[0].unpadded) == 3  # every input but the one of whole slices
    gen = np.random.default_rng(5)
    feeds = [gen.standard_normal(shape).astype(np.float32) for shape in SHAPES]
    for got, fed in zip(runner.run(feeds), feeds):
        want = fed if precision == "fp32" else fed.astype(np.float16).astype(np.float32)
        np.testing.assert_array_equal(got, want)
