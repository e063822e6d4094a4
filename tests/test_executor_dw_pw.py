"""A DEPTHWISE_CONV_2D and the 1x1 CONV_2D reading its output in one kernel (opencl/fusion.py
depthwise_plus_1x1, conv.cl depthwise_pointwise), where the delegate's special selector merges them
(tasks/special/depthwise_conv_plus_1x1_conv.cc): the pairs within its conditions are merged and
match the reference interpreter; pairs just outside each condition are not merged. The merge keeps
the depthwise output unrounded in half storage (fp16); in fp32, where no stored value is rounded,
the executor merges for speed the pairs whose 1x1 has at most 32 outputs, within the delegate's
limits or not (fusion.py depthwise_into_1x1), computing what the two kernels compute bit for bit."""

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.fusion import kernel_ops
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from modelgen import builder, const, convert_fn, tf
from test_executor_kernels import compare_all_gpu, runtimes  # noqa: F401  (fixture)

pytestmark = pytest.mark.opencl


def _dw(t, x, channels: int, size: int, seed: int, stride: int = 1, padding: str = "SAME", dilation: int = 1,
        multiplier: int = 1):
    w = const([size, size, channels, multiplier], seed)
    y = t.nn.depthwise_conv2d(x, w, [1, stride, stride, 1], padding, dilations=[dilation, dilation])
    return y + const([channels * multiplier], seed + 100)


def _pw(t, x, cin: int, cout: int, seed: int, stride: int = 1):
    return t.nn.conv2d(x, const([1, 1, cin, cout], seed), stride, "VALID") + const([cout], seed + 100)


@builder("k_dw_pw")
def k_dw_pw() -> bytes:
    """Pairs within the delegate's limits: 16 channels 3x3 stride 1 + RELU6 -> 8 outputs
    (MobileNetV2's first block); 6 channels 3x3 stride 2 VALID, batch 2 -> 32 outputs + RELU (the
    most outputs); 5 channels 5x5 dilation 2 (125 channel-taps) + RELU_N1_TO_1 -> 17 outputs, with
    an ADD of a second input linked after the pair; 5 channels 5x5 at stride 1 -> 12 outputs and
    at stride 2 + RELU -> 20 (edges on both sides of a width of 10)."""
    t = tf()

    def f(x16, x6, x5, y):
        return [
            _pw(t, t.nn.relu6(_dw(t, x16, 16, 3, 1)), 16, 8, 2),
            t.nn.relu(_pw(t, _dw(t, x6, 6, 3, 3, stride=2, padding="VALID"), 6, 32, 4)),
            _pw(t, t.clip_by_value(_dw(t, x5, 5, 5, 5, dilation=2), -1.0, 1.0), 5, 17, 6) + y,
            _pw(t, _dw(t, x5, 5, 5, 7), 5, 12, 8),
            _pw(t, t.nn.relu(_dw(t, x5, 5, 5, 9, stride=2)), 5, 20, 10),
        ]

    return convert_fn(f, [([1, 7, 9, 16], t.float32), ([2, 9, 11, 6], t.float32), ([1, 8, 10, 5], t.float32),
                          ([1, 8, 10, 17], t.float32)])


@builder("k_dw_pw_refused")
def k_dw_pw_refused() -> bytes:
    """Pairs each just outside one condition: 17 depthwise channels; 6 channels 5x5 (150
    channel-taps > 144); 33 outputs; a 1x1 conv with stride 2; a depthwise output that is also a
    model output; depth multiplier 2."""
    t = tf()

    def f(x17, x6, x8, x4):
        handed_on = _dw(t, x8, 8, 3, 17)
        return [
            _pw(t, _dw(t, x17, 17, 3, 11), 17, 8, 12),
            _pw(t, _dw(t, x6, 6, 5, 13), 6, 8, 14),
            _pw(t, _dw(t, x8, 8, 3, 15), 8, 33, 16),
            _pw(t, _dw(t, x8, 8, 3, 19), 8, 8, 20, stride=2),
            handed_on,
            _pw(t, handed_on, 8, 8, 18),
            _pw(t, _dw(t, x4, 4, 3, 21, multiplier=2), 8, 8, 22),
        ]

    return convert_fn(f, [([1, 7, 9, 17], t.float32), ([1, 7, 9, 6], t.float32), ([1, 7, 9, 8], t.float32),
                          ([1, 7, 9, 4], t.float32)])


def dw_conv_pairs(model: ir.Model) -> set[tuple[int, int]]:
    """(depthwise, conv) op indices of every 1x1-or-other CONV_2D reading a DEPTHWISE_CONV_2D's output."""
    return {(op.inputs[0].producer.index, op.index) for op in model.graphs[0].ops
            if op.name == "CONV_2D" and op.inputs[0].producer is not None
            and op.inputs[0].producer.name == "DEPTHWISE_CONV_2D"}


def merged_runs(model: ir.Model, precision: str = "fp16") -> list[list[int]]:
    """The runs (op indices) whose kernel computes a merged depthwise + 1x1 pair, as the executor
    grouped the fully delegated model at `precision`."""
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), Runtime(choose(), precision))
    return [[op.index for op in run] for run, _ in runner.parts[0].steps if len(kernel_ops(run)) == 2]


def test_pairs_within_the_delegates_limits_are_merged(models):
    model = ir.from_bytes(models.bytes("k_dw_pw"))
    pairs = dw_conv_pairs(model)
    assert len(pairs) == 5
    runs = merged_runs(model)
    assert {tuple(run[:2]) for run in runs} == pairs
    linked = [run for run in runs if len(run) == 3]  # the ADD of the second input joins its pair
    assert len(linked) == 1 and model.graphs[0].ops[linked[0][2]].name == "ADD"


def outputs_of_merged(model: ir.Model, precision: str) -> list[int]:
    """The 1x1 output counts of the pairs merged at `precision`."""
    ops = model.graphs[0].ops
    return sorted(int(ops[run[1]].inputs[1].shape[0]) for run in merged_runs(model, precision))


def test_in_fp32_pairs_with_up_to_32_outputs_are_merged(models):
    # In fp32 the executor merges for speed whatever the depthwise channels and window (17
    # channels, 6 channels 5x5 are outside the delegate's limits); above 32 outputs each of the
    # 1x1's blocks of 16 would compute the depthwise sums again, so those pairs run as two kernels.
    assert outputs_of_merged(ir.from_bytes(models.bytes("k_dw_pw")), "fp16") == [8, 12, 17, 20, 32]
    assert outputs_of_merged(ir.from_bytes(models.bytes("k_dw_pw")), "fp32") == [8, 12, 17, 20, 32]
    assert outputs_of_merged(ir.from_bytes(models.bytes("k_dw_pw_refused")), "fp32") == [8, 8]


def test_in_fp32_a_merged_pair_computes_what_the_two_kernels_compute_bit_for_bit(models):
    # The merged kernels sum each depthwise slice as the depthwise kernels do (the row kernels'
    # windows: 3x3 at strides 1 and 2, 5x5 at strides 1 and 2; the generic one's: 5x5 dilated) and
    # the 1x1 as pointwise_conv2d does, and in fp32 nothing stored between them is rounded: merging
    # changes no value, with one block of 16 outputs or two, with an ADD linked after the pair.
    data = models.bytes("k_dw_pw")
    model = ir.from_bytes(data)
    ops = model.graphs[0].ops
    merged = merged_runs(model, "fp32")
    assert len(merged) == 5
    runtime = Runtime(choose(), "fp32")
    feeds = seeded_feeds(model.graphs[0], 3)
    fused = HybridRunner(model, ["gpu"] * len(ops), runtime).run(feeds)
    alone = HybridRunner(model, ["gpu"] * len(ops), runtime, record=True).run(feeds)
    outputs = [t.index for t in model.graphs[0].outputs]
    for run in merged:
        at = outputs.index(ops[run[-1]].outputs[0].index)
        np.testing.assert_array_equal(fused[at], alone[at])


def test_pairs_outside_the_limits_are_not_merged(models):
    model = ir.from_bytes(models.bytes("k_dw_pw_refused"))
    assert len(dw_conv_pairs(model)) == 6
    assert merged_runs(model) == []


def test_a_tanh_between_the_convolutions_ends_the_match(models):
    # The delegate accepts only a ReLU node between the two (TANH becomes a node of its own).
    model = ir.from_bytes(models.bytes("k_dw_pw"))
    dws = [op for op in model.graphs[0].ops if op.name == "DEPTHWISE_CONV_2D"]
    before = len(merged_runs(model))
    dws[0].options.fusedActivationFunction = 4  # TANH
    assert len(merged_runs(model)) == before - 1


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["k_dw_pw", "k_dw_pw_refused"])
def test_merged_and_unmerged_pairs_match_reference(models, runtimes, name, precision):  # noqa: F811
    compare_all_gpu(models, runtimes[precision], name)
