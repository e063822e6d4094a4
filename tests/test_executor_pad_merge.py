"""PAD folded into the convolution reading it, as the delegate's model transformations fold it
(common/transformations/merge_padding_with.cc; opencl/fusion.py merged_padding): zero padding of
H and W read by one CONV_2D or DEPTHWISE_CONV_2D becomes that convolution's own extra padding, so
the padded tensor is never written; padding of the channels, or a padded tensor with a second
reader, stays a PAD of its own. Both match the reference interpreter."""

import pytest

from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from modelgen import builder, const, convert_fn, tf
from test_executor_kernels import compare_all_gpu, runtimes  # noqa: F401  (fixture)

pytestmark = pytest.mark.opencl


@builder("k_pad_conv")
def k_pad_conv() -> bytes:
    """Four PADs of H and W, each before: a 3x3 stride-2 depthwise (uneven padding, RELU), a 3x3
    stride-2 conv (padding before H, after W), a 3x3 depthwise whose 1x1 conv the delegate merges
    with it (depthwise_pointwise), a 1x1 conv (no longer pointwise once it pads); and two PADs that
    stay: one of the channels, one whose padded tensor a conv and a MUL both read."""
    t = tf()

    def f(x, x16):
        dw_w = const([3, 3, 6, 1], 1)
        out = {
            "a_dw_s2": t.nn.relu(t.nn.depthwise_conv2d(t.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]), dw_w,
                                                       [1, 2, 2, 1], "VALID") + const([6], 2)),
            "b_conv": t.nn.conv2d(t.pad(x, [[0, 0], [2, 0], [0, 1], [0, 0]]), const([3, 3, 6, 12], 3), 2, "VALID"),
            "c_dw_pw": t.nn.conv2d(t.nn.relu6(t.nn.depthwise_conv2d(
                t.pad(x16, [[0, 0], [2, 0], [0, 3], [0, 0]]), const([3, 3, 16, 1], 4), [1, 1, 1, 1], "VALID")
                + const([16], 5)), const([1, 1, 16, 8], 6), 1, "VALID"),
            "d_pointwise": t.nn.conv2d(t.pad(x, [[0, 0], [1, 0], [0, 1], [0, 0]]), const([1, 1, 6, 5], 7), 1,
                                       "VALID"),
            "e_channels": t.nn.conv2d(t.pad(x, [[0, 0], [0, 0], [0, 0], [0, 2]]), const([1, 1, 8, 4], 8), 1,
                                      "VALID"),
        }
        shared = t.pad(x, [[0, 0], [2, 2], [2, 2], [0, 0]])
        out["f_shared_conv"] = t.nn.conv2d(shared, const([3, 3, 6, 4], 9), 1, "VALID")
        out["f_shared_mul"] = shared * 2.0
        return [out[k] for k in sorted(out)]

    return convert_fn(f, [([1, 9, 11, 6], t.float32), ([1, 7, 8, 16], t.float32)])


def test_padding_of_h_and_w_is_folded_into_the_convolution(models):
    model = ir.from_bytes(models.bytes("k_pad_conv"))
    pads = [op for op in model.graphs[0].ops if op.name == "PAD"]
    assert len(pads) == 6
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), Runtime(choose(), "fp32"))
    ran = [op for part in runner.parts for run, _ in part.steps for op in run]
    kept = [op for op in pads if op in ran]
    # the channel PAD and the PAD whose tensor is read twice (by a conv and a MUL) stay
    assert len(kept) == 2
    assert {tuple(op.outputs[0].shape) for op in kept} == {(1, 9, 11, 8), (1, 13, 15, 6)}


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_folded_padding_matches_reference(models, runtimes, precision):  # noqa: F811
    compare_all_gpu(models, runtimes[precision], "k_pad_conv")
