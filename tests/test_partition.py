"""Partitioning worked out by hand from graph_info.cc's greedy algorithm and
GetFirstNLargestPartitions (delegates/utils.cc), on graphs whose GPU islands are cut by GATHER_ND, which
no profile supports."""

from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options


def run(models, name, profile="gpu-current", n=1):
    model = ir.load(models.path(name))
    return model, check_model(model, registry.get(profile), Options(max_delegated_partitions=n))


def subset_names(model, result):
    """Each node subset as (delegated type, set of op names), in creation order."""
    ops = model.graphs[0].ops
    return [(s.delegated_type, {ops[i].name for i in s.nodes}) for s in result.subgraphs[0].subsets]


def test_chain_cut_by_a_cpu_node(models):
    """CONV_2D -> GATHER_ND -> MUL -> ADD -> TANH: subsets [CONV] gpu, [GATHER_ND] cpu,
    [MUL, ADD, TANH] gpu; the largest (3 nodes) is delegated; after replacement the plan is
    {CONV, GATHER_ND} cpu + {MUL, ADD, TANH} gpu: "yielding 2 partitions"."""
    model, r = run(models, "gather_nd_island")
    assert subset_names(model, r) == [(True, {"CONV_2D"}), (False, {"GATHER_ND"}), (True, {"MUL", "ADD", "TANH"})]
    assert r.subgraphs[0].delegated == [2]
    assert r.ops_gpu == 3 and r.partitions_total == 2 and r.partitions_delegated == 1


def test_two_partitions_delegated(models):
    """max_delegated_partitions=2 takes both islands: 4 nodes, 3 subsets after replacement."""
    _, r = run(models, "gather_nd_island", n=2)
    assert r.subgraphs[0].delegated == [0, 2]
    assert r.ops_gpu == 4 and r.partitions_total == 3 and r.partitions_delegated == 2


def test_zero_partitions_means_one(models):
    _, r0 = run(models, "gather_nd_island", n=0)
    _, r1 = run(models, "gather_nd_island", n=1)
    assert r0.subgraphs[0].delegated == r1.subgraphs[0].delegated == [2]


def test_independent_branches_merge(models):
    """RELU, SIN and MUL are ready before GATHER_ND whatever the plan order, so they form one
    subset; TANH, behind the CPU node, forms another. The 3-node subset wins."""
    model, r = run(models, "partition_branches")
    assert subset_names(model, r) == [(True, {"RELU", "SIN", "MUL"}), (False, {"GATHER_ND"}), (True, {"TANH"})]
    assert r.subgraphs[0].delegated == [0]
    assert r.ops_gpu == 3 and r.partitions_total == 2


def test_ties_go_to_the_earliest_partition(models):
    """RELU and TANH islands have one node each: the earlier (RELU) is delegated."""
    model, r = run(models, "partition_tie")
    assert subset_names(model, r) == [(True, {"RELU"}), (False, {"GATHER_ND"}), (True, {"TANH"})]
    assert [o.op for o in r.ops if o.placement == "gpu"] == ["RELU"]


def test_prefix_mode_of_2019(models):
    """gpu-2019 delegates the plan up to the first unsupported op: only CONV_2D."""
    model, r = run(models, "gather_nd_island", profile="gpu-2019")
    assert [o.op for o in r.ops if o.placement == "gpu"] == ["CONV_2D"]
