"""The blocked convolution kernels against the reference interpreter: conv2d (four output slices
and eight pixels along x per work-item), pointwise_conv2d / pointwise_row (1x1 stride-1
convolutions and FULLY_CONNECTED as a matrix product over the flattened pixels) and
depthwise_conv3x3_s1 (a row of input cells reused over the taps), over the shapes
where their blocking has edges: output channels around multiples of 16, pixel counts around
multiples of 8, batches, fused activations and a fused residual ADD; fp32 tight and fp16 within
the documented tolerance. The blocked kernels with linked ops also run on each CPU runtime (PoCL and
Intel's, whose compilers treat their float16 arithmetic differently)."""

import numpy as np
import pytest

from cpu_runtimes import cpu_runtimes  # noqa: F401  (fixture)
from gpucompat import ir
from gpucompat.opencl.runtime import Launch
from gpucompat.verification.hybrid import HybridRunner
from modelgen import builder, const, convert_fn, tf
from test_executor_kernels import compare_all_gpu, runtimes  # noqa: F401  (fixture)

POINTWISE_OUTPUTS = (1, 3, 4, 8, 12, 16, 17, 20, 33)


pytestmark = pytest.mark.opencl


@builder("k_pointwise")
def k_pointwise() -> bytes:
    """1x1 convolutions: every output count of POINTWISE_OUTPUTS from 5 and 20 input channels on
    5x7 pixels (35: not a multiple of 8), batch 2 on 3x8, RELU6, and a 1x1 conv whose ADD with a
    second input fuses into it (MobileNetV2's residual)."""
    t = tf()

    def f(x5, x20, xb, res):
        out = {}
        for i, co in enumerate(POINTWISE_OUTPUTS):
            out[f"a{co:02d}"] = t.nn.conv2d(x5, const([1, 1, 5, co], i), 1, "VALID") + const([co], 20 + i)
            out[f"b{co:02d}"] = t.nn.relu6(t.nn.conv2d(x20, const([1, 1, 20, co], 40 + i), 1, "SAME"))
        out["batch"] = t.nn.conv2d(xb, const([1, 1, 6, 9], 60), 1, "VALID")
        out["residual"] = t.nn.conv2d(x20, const([1, 1, 20, 12], 61), 1, "VALID") + res
        return [out[k] for k in sorted(out)]

    return convert_fn(f, [([1, 5, 7, 5], t.float32), ([1, 5, 7, 20], t.float32), ([2, 3, 8, 6], t.float32),
                          ([1, 5, 7, 12], t.float32)])


@builder("k_blocked_conv")
def k_blocked_conv() -> bytes:
    """conv2d's blocking edges: 17 and 33 outputs (a partial group of 16), widths 9 and 17 (a
    partial block of 8 along x), batch 2, SAME / VALID, stride 2, dilation 2, a grouped conv, and
    a 1x1 conv with stride 2 (not pointwise: it runs as conv2d), and the fused activations RELU and
    RELU_N1_TO_1 (conv.cl's activate_inline); 1, 3 and 4 outputs over 272-1155 pixels (conv2d_slice:
    one slice, stride 2, batch 2), and 2 outputs over 12 pixels (too few for conv2d_slice)."""
    t = tf()

    def f(x9, xb, big):
        out = {
            "same17": t.nn.relu(t.nn.conv2d(x9, const([3, 3, 6, 17], 1), 1, "SAME") + const([17], 2)),
            "valid33_s2": t.nn.conv2d(x9, const([3, 3, 6, 33], 3), 2, "VALID"),
            "dilated20": t.nn.conv2d(x9, const([3, 3, 6, 20], 4), 1, "SAME", dilations=2),
            "grouped": t.nn.conv2d(x9, const([3, 3, 3, 18], 5), 1, "SAME"),
            "strided_1x1": t.nn.conv2d(x9, const([1, 1, 6, 16], 6), 2, "SAME"),
            "batch": t.nn.conv2d(xb, const([3, 3, 5, 12], 7), 2, "SAME"),
            "relu_n1_to_1": t.clip_by_value(t.nn.conv2d(x9, const([3, 3, 6, 5], 8), 1, "SAME"), -1.0, 1.0),
            "slice1": t.nn.conv2d(big, const([3, 3, 6, 1], 10), 1, "SAME") + const([1], 11),
            "slice3_s2": t.nn.relu(t.nn.conv2d(big, const([3, 3, 6, 3], 12), 2, "VALID")),
            "slice4_batch": t.nn.conv2d(xb, const([3, 3, 5, 4], 13), 2, "SAME"),
            "few_pixels2": t.nn.conv2d(x9, const([3, 3, 6, 2], 14), 2, "VALID"),
        }
        return [out[k] for k in sorted(out)]

    return convert_fn(f, [([1, 7, 9, 6], t.float32), ([2, 17, 33, 5], t.float32), ([1, 33, 35, 6], t.float32)])


@builder("k_blocked_dense")
def k_blocked_dense() -> bytes:
    """FULLY_CONNECTED row for row, as the pointwise kernels run it: one row of 40 -> 33 (+RELU, a
    partial group of 16), four rows, and rank-3 rows (2 x 3 x 20 -> 17)."""
    t = tf()

    def f(row, rows, x3):
        out = {
            "row": t.nn.relu(t.matmul(row, const([40, 33], 1)) + const([33], 2)),
            "rows": t.matmul(rows, const([40, 7], 3)) + const([7], 4),
            "rank3": t.matmul(x3, const([20, 17], 5)) + const([17], 6),
        }
        return [out[k] for k in sorted(out)]

    return convert_fn(f, [([1, 40], t.float32), ([4, 40], t.float32), ([2, 3, 20], t.float32)])


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_blocked_dense_matches_reference(models, runtimes, precision):  # noqa: F811
    data = models.bytes("k_blocked_dense")
    assert {op.name for op in ir.from_bytes(data).graphs[0].ops} == {"FULLY_CONNECTED"}  # the op under test
    compare_all_gpu(models, runtimes[precision], "k_blocked_dense")


@builder("k_blocked_depthwise")
def k_blocked_depthwise() -> bytes:
    """depthwise_conv{3x3,5x5}_s{1,2}'s edges: widths 17 and 3 (partial blocks of 8, a row narrower
    than the block and than the 5x5 window), SAME and VALID, batch 2, 6 and 16 channels, RELU6; and
    a dilated 3x3 beside them (the generic kernel)."""
    t = tf()

    def f(x, xb):
        out = {
            "same": t.nn.relu6(t.nn.depthwise_conv2d(x, const([3, 3, 6, 1], 1), [1, 1, 1, 1], "SAME") + const([6], 2)),
            "valid": t.nn.depthwise_conv2d(x, const([3, 3, 6, 1], 3), [1, 1, 1, 1], "VALID"),
            "strided": t.nn.depthwise_conv2d(x, const([3, 3, 6, 1], 4), [1, 2, 2, 1], "SAME"),
            "strided_valid": t.nn.depthwise_conv2d(x, const([3, 3, 6, 1], 10), [1, 2, 2, 1], "VALID"),
            "strided5": t.nn.relu6(t.nn.depthwise_conv2d(x, const([5, 5, 6, 1], 11), [1, 2, 2, 1], "SAME")),
            "strided_batch_narrow5": t.nn.depthwise_conv2d(xb, const([5, 5, 16, 1], 12), [1, 2, 2, 1], "SAME"),
            "dilated": t.nn.depthwise_conv2d(x, const([3, 3, 6, 1], 13), [1, 1, 1, 1], "SAME", dilations=[2, 2]),
            "batch_narrow": t.nn.depthwise_conv2d(xb, const([3, 3, 16, 1], 5), [1, 1, 1, 1], "SAME"),
            "same5": t.nn.relu6(t.nn.depthwise_conv2d(x, const([5, 5, 6, 1], 6), [1, 1, 1, 1], "SAME")
                                + const([6], 7)),
            "valid5": t.nn.depthwise_conv2d(x, const([5, 5, 6, 1], 8), [1, 1, 1, 1], "VALID"),
            "batch_narrow5": t.nn.depthwise_conv2d(xb, const([5, 5, 16, 1], 9), [1, 1, 1, 1], "SAME"),
        }
        return [out[k] for k in sorted(out)]

    return convert_fn(f, [([1, 6, 17, 6], t.float32), ([2, 4, 3, 16], t.float32)])


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_blocked_depthwise_matches_reference(models, runtimes, precision):  # noqa: F811
    compare_all_gpu(models, runtimes[precision], "k_blocked_depthwise")


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_blocked_conv_matches_reference(models, runtimes, precision):  # noqa: F811
    fused = {op.options.fusedActivationFunction for op in ir.from_bytes(models.bytes("k_blocked_conv")).graphs[0].ops
             if op.name == "CONV_2D"}
    assert {1, 2} <= fused  # RELU, RELU_N1_TO_1: the activations under test are fused into the convs
    compare_all_gpu(models, runtimes[precision], "k_blocked_conv")


def test_a_conv_to_few_channels_takes_the_slice_kernel_only_over_enough_pixels(models, runtimes):  # noqa: F811
    """conv2d_slice is compiled for a conv to at most 4 channels with a map worth it; over a few
    pixels the blocked conv2d, already built for the other convs, computes it."""
    model = ir.from_bytes(models.bytes("k_blocked_conv"))
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])
    kernel_of = {id(run[0]): step.name for run, step in runner.parts[0].steps if isinstance(step, Launch)}
    few = {int(np.prod(op.outputs[0].shape[:3])): kernel_of[id(op)] for op in runner.model.graphs[0].ops
           if op.name == "CONV_2D" and op.inputs[1].shape[0] <= 4}
    assert few == {12: "conv2d", 272: "conv2d_slice", 306: "conv2d_slice", 1155: "conv2d_slice"}


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_pointwise_conv_matches_reference(models, runtimes, precision):  # noqa: F811
    compare_all_gpu(models, runtimes[precision], "k_pointwise")


@builder("k_blocked_fused")
def k_blocked_fused() -> bytes:
    """The float16 blocked kernels where a group of 16 output channels is partial and ops are linked
    after them: a 1x1 conv 37 -> 19 over 63 pixels (blocks of 8 crossing rows) with an ADD of a
    second input (+RELU) and a MUL by a per-channel input linked; 150 -> 45 (38 input slices), batch
    2, TANH; a depthwise 3x3 over 13 channels merged with its 1x1 conv to 29 outputs, an ADD linked
    after; and a FULLY_CONNECTED over 5 rows of 70 -> 23 (+RELU6)."""
    t = tf()

    def f(x37, y19, s19, x150, x13, y29, rows):
        summed = t.nn.relu(t.nn.conv2d(x37, const([1, 1, 37, 19], 1), 1, "VALID") + const([19], 2) + y19)
        dw = t.nn.depthwise_conv2d(x13, const([3, 3, 13, 1], 5), [1, 1, 1, 1], "SAME") + const([13], 6)
        return [
            summed * s19,
            t.tanh(t.nn.conv2d(x150, const([1, 1, 150, 45], 3), 1, "VALID") + const([45], 4)),
            t.nn.conv2d(t.nn.relu6(dw), const([1, 1, 13, 29], 7), 1, "VALID") + const([29], 8) + y29,
            t.nn.relu6(t.matmul(rows, const([70, 23], 9)) + const([23], 10)),
        ]

    return convert_fn(f, [([1, 7, 9, 37], t.float32), ([1, 7, 9, 19], t.float32), ([1, 1, 1, 19], t.float32),
                          ([2, 3, 5, 150], t.float32), ([1, 6, 5, 13], t.float32), ([1, 6, 5, 29], t.float32),
                          ([5, 70], t.float32)])


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_blocked_kernels_with_linked_ops_match_reference_on_each_cpu_runtime(models, cpu_runtimes, precision):  # noqa: F811
    model = ir.from_bytes(models.bytes("k_blocked_fused"))
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), cpu_runtimes[precision])
    ops = [[op.name for op in run] for run, _ in runner.parts[0].steps]
    assert ["CONV_2D", "ADD", "MUL"] in ops  # the ADD and the per-channel MUL run in the conv's kernel
    assert ["CONV_2D", "TANH"] in ops
    assert ["DEPTHWISE_CONV_2D", "CONV_2D", "ADD"] in ops  # the merged pair, the ADD linked after it
    compare_all_gpu(models, cpu_runtimes[precision], "k_blocked_fused")
