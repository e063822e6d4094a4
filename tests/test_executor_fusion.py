"""Elementwise fusion (opencl/fusion.py) on k_fusion, whose execution plan is

    0 CONV_2D(x) -> 1 TANH -> 3 MUL(., y) -> 4 ADD(., const) -> 5 LOGISTIC -> graph output
    2 CONV_2D(x) -> read by 6 SUB(y, .) and by 7 MUL(., const); 8 ADD(6, 7) -> graph output

Worked out from the delegate's rule (one non-output tensor, read by exactly one elementwise op as
its first input, the op's other operands ready when the producer runs): the whole first chain
fuses into op 0; op 2's output is read twice, so nothing joins it; op 6's output is ADD's first
input, but ADD's other operand comes from op 7, which runs after op 6, so the delegate's rule leaves
it alone. The executor links it into op 7 instead, whose output is its second input (its first is
ready by then): fusion._next_link, tests/test_executor_second_input_link.py.
"""

import pytest

import models_kernels  # noqa: F401  (registers builders)
from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.fusion import groups
from gpucompat.opencl.lowering import linkable, producer
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from test_executor_kernels import assert_within

pytestmark = pytest.mark.opencl


def plan(models):
    model = ir.from_bytes(models.bytes("k_fusion"))
    graph = model.graphs[0]
    assert [op.name for op in graph.ops] == ["CONV_2D", "TANH", "CONV_2D", "MUL", "ADD", "LOGISTIC", "SUB",
                                             "MUL", "ADD"]
    return model, graph


def indices(runs):
    return [[op.index for op in run] for run in runs]


def test_chains_fuse_by_the_delegates_rule_and_at_second_inputs(models):
    _, graph = plan(models)
    handed_on = {id(t) for t in graph.outputs}
    assert indices(groups(graph.ops, handed_on, producer, linkable)) == [[0, 1, 3, 4, 5], [2], [6], [7, 8]]


def test_a_linked_ops_operand_must_be_ready_before_the_producer(models):
    # Running op 7 before op 6 makes ADD's second operand ready when SUB runs: ADD joins SUB.
    _, graph = plan(models)
    ops = [graph.ops[i] for i in (0, 1, 2, 3, 4, 5, 7, 6, 8)]
    handed_on = {id(t) for t in graph.outputs}
    assert indices(groups(ops, handed_on, producer, linkable)) == [[0, 1, 3, 4, 5], [2], [7], [6, 8]]


def test_a_tensor_handed_on_ends_the_chain(models):
    # When TANH's output also leaves the partition, TANH still joins the conv, but the chain stops
    # there; MUL (itself a producer) then takes ADD and LOGISTIC.
    _, graph = plan(models)
    handed_on = {id(t) for t in graph.outputs} | {id(graph.ops[1].outputs[0])}
    assert indices(groups(graph.ops, handed_on, producer, linkable)) == [[0, 1], [2], [3, 4, 5], [6], [7, 8]]


def test_fused_runs_compute_what_the_ops_compute_one_by_one(models):
    model, graph = plan(models)
    runtime = Runtime(choose(), "fp32")
    fused = HybridRunner(model, ["gpu"] * len(graph.ops), runtime)
    single = HybridRunner(model, ["gpu"] * len(graph.ops), runtime, record=True)
    assert len(fused.parts[0].steps) == 4 and len(single.parts[0].steps) == 9
    feeds = seeded_feeds(model.graphs[0], 3)
    for a, b in zip(fused.run(feeds), single.run(feeds)):
        assert_within(a, b, "fp32", "fused vs one by one")


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_a_fully_connected_with_runtime_weights_runs_the_add_after_it(models, precision):
    """Its kernel (indexed.cl's matmul, one work-item per float) takes no linked ops: the ADD runs
    as its own kernel, and the model computes what the reference interpreter computes."""
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    raw = models.bytes("k_scores_plus_mask")
    model = ir.from_bytes(raw)
    graph = model.graphs[0]
    fc = graph.ops[0]
    assert [op.name for op in graph.ops] == ["FULLY_CONNECTED", "ADD"]
    assert fc.input(1) in graph.inputs and fc.input(2) is None  # the keys as weights, no bias
    runner = HybridRunner(model, ["gpu", "gpu"], Runtime(choose(), precision))
    assert indices(run for run, _ in runner.parts[0].steps) == [[0], [1]]
    feeds = seeded_feeds(graph, 5)
    want = run_reference(reference_interpreter(raw, "k_scores_plus_mask"), feeds)
    assert_within(runner.run(feeds)[0], want[0], precision, "scores + mask")
