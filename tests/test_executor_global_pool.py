"""MEAN and SUM over H and W alone (a global average pool: MobileNetV2's last reduction) run as
reduce.cl reduce_hw, four channels per work-item: the values must be the reduction's own, bit for
bit: each channel summed pixel by pixel in row order in float from 0, then (MEAN) divided by the
pixel count, stored at the precision's storage type; on each CPU runtime, over 35 pixels (a
division that is not exact) with channels that end mid-slice."""

import numpy as np
import pytest

from cpu_runtimes import cpu_runtimes  # noqa: F401  (fixture)
from gpucompat import ir
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from irbuild import IRModel, options
from modelgen import builder

pytestmark = pytest.mark.opencl

SHAPE = [2, 5, 7, 10]


@builder("k_global_pool")
def k_global_pool() -> bytes:
    """MEAN over H, W keeping them and SUM over H, W dropping them, of one [2, 5, 7, 10] input."""
    m = IRModel()
    x = m.input("x", SHAPE)
    axes = m.const("axes", np.array([1, 2], np.int32))
    mean = m.op("MEAN", [x, axes], [2, 1, 1, 10], options=options("Reducer", keepDims=True), output_name="mean")
    total = m.op("SUM", [x, axes], [2, 10], options=options("Reducer", keepDims=False), output_name="sum")
    m.output(mean, total)
    return m.bytes()


def sequential(x: np.ndarray) -> np.ndarray:
    """Per (batch, channel), the float32 sum of the pixels in row order, from 0."""
    acc = np.zeros((x.shape[0], x.shape[3]), np.float32)
    for y in range(x.shape[1]):
        for col in range(x.shape[2]):
            acc = acc + x[:, y, col, :]
    return acc


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_global_pool_is_the_sequential_sum(models, cpu_runtimes, precision):  # noqa: F811
    model = ir.from_bytes(models.bytes("k_global_pool"))
    graph = model.graphs[0]
    (x,) = seeded_feeds(graph, 7)
    mean, total = HybridRunner(model, ["gpu"] * len(graph.ops), cpu_runtimes[precision]).run([x])
    stored = np.float32 if precision == "fp32" else np.float16
    summed = sequential(x.astype(stored).astype(np.float32))  # the input as the device holds it
    pixels = np.float32(SHAPE[1] * SHAPE[2])
    np.testing.assert_array_equal(total, summed.astype(stored).astype(np.float32))
    np.testing.assert_array_equal(mean.reshape(2, 10), (summed / pixels).astype(stored).astype(np.float32))
