"""Counterfactuals, worked out by hand from the greedy partitioning of two_gathers:
conv(0) GATHER_ND(1) tanh(2) GATHER_ND(3) tanh(4) mul(5) -> GPU[0] CPU[1] GPU[2] CPU[3] GPU[4,5];
today the 2-node partition is delegated: 2 of 6 ops on the GPU. The substitute-gather rewrite
of `gpucompat fix` replaces both GATHER_NDs, so the op-type line is that rewrite's line."""

from analysis_helpers import analyses_of
from gpucompat import ir
from gpucompat.analyses import analyze
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options


def test_two_gathers(models):
    result, a = analyses_of(models.path("two_gathers"))
    assert result.ops_gpu == 2
    got = [(w.kind, w.nodes, w.ops_gpu, w.partitions_delegated, w.gain) for w in a.what_if]
    assert got == [
        ("rewrite", [(0, 1), (0, 3)], 6, 1, 4),  # no CPU op left: one partition, 100%
        ("node", [(0, 3)], 4, 1, 2),             # GPU[0] CPU[1] GPU[2..5]: 4 nodes delegated
        ("node", [(0, 1)], 3, 1, 1),             # GPU[0..2] CPU[3] GPU[4,5]: 3 nodes delegated
    ]
    assert a.what_if[0].describe() == ("gpucompat fix (substitute-gather) on 2 rejected nodes: "
                                       "1 delegated partition, 100% on GPU (+4 ops)")


def test_more_partitions_allowed(models):
    # with two partitions delegated, accepting node 1 leaves GPU[0..2] and GPU[4,5]: all 5 GPU nodes
    result, a = analyses_of(models.path("two_gathers"), max_delegated_partitions=2)
    assert result.ops_gpu == 3  # today: GPU[4,5] and one of the 1-node partitions
    # either GATHER_ND alone gives 5 nodes in 2 partitions: the same gain, so no single-node lines
    assert [(w.kind, w.nodes, w.ops_gpu, w.partitions_delegated) for w in a.what_if] == [
        ("rewrite", [(0, 1), (0, 3)], 6, 1)]


def test_nothing_to_gain_on_a_clean_model(models):
    _, a = analyses_of(models.path("conv_relu"))
    assert a.what_if == []


def test_one_line_per_action_on_real_converter_output(real_models):
    """pose_detection (MediaPipe): 38 sparse weights read through DENSIFY -> fp16 DEQUANTIZE
    split the graph. The one action is `gpucompat fix`, which folds both into constants; no line
    per DEQUANTIZE node (each alone gains the same), no line for the op types it replaces."""
    model = ir.load(str(real_models["pose_detection"]))
    result = check_model(model, registry.get("litert-mldrift"), Options())
    lines = analyze(model, result).what_if
    assert [(w.kind, w.op) for w in lines] == [("rewrite", "fold-constants")]
    assert lines[0].share == 1.0 and lines[0].partitions_delegated == 1
    assert {result.ops[i].op for _, i in lines[0].nodes} == {"DENSIFY", "DEQUANTIZE"}
