"""One kernel launched with several fused epilogues is compiled once (opencl/fusion.py shared): each
launch picks its own epilogue by an argument, and computes what it computed as a variant of its
own. k_shared_epilogues runs pointwise_conv2d four ways:

    a = CONV_2D 1x1(x) -> ADD(a, s)        the running value first
    b = CONV_2D 1x1(x) -> ADD(s, b)        linked at the second input: the same epilogue as a's (ADD commutes)
    c = CONV_2D 1x1(x) -> SUB(s, c) RELU   linked at the second input: SUB does not commute
    d = CONV_2D 1x1(x)                     nothing fused

so three distinct epilogues (ADD, SUB + RELU, none) share one compiled pointwise_conv2d.
"""

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from irbuild import IRModel, conv_options, options
from modelgen import builder
from test_executor_kernels import assert_within

SHAPE = [1, 5, 6, 12]


@builder("k_shared_epilogues")
def k_shared_epilogues() -> bytes:
    """The four convolutions of the module docstring, seeded weights."""
    m, gen = IRModel(), np.random.default_rng(41)
    x, s = m.input("x", SHAPE), m.input("s", SHAPE)
    filters = {name: [m.const(f"{name}/{part}", (gen.standard_normal(shape) * 0.3).astype(np.float32))
                      for part, shape in (("w", [12, 1, 1, 12]), ("b", [12]))] for name in "abcd"}
    a, b, c, d = (m.op("CONV_2D", [x, *filters[name]], SHAPE, options=conv_options(), output_name=name)
                  for name in "abcd")
    first = m.op("ADD", [a, s], SHAPE, options=options("Add"))
    second = m.op("ADD", [s, b], SHAPE, options=options("Add"))
    ordered = m.op("SUB", [s, c], SHAPE, options=options("Sub", activation="RELU"))
    m.output(first, second, ordered, d)
    return m.bytes()


@pytest.mark.opencl
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_a_kernel_fused_several_ways_compiles_once_and_computes_each_way(models, precision):
    data = models.bytes("k_shared_epilogues")
    parsed = ir.from_bytes(data)
    graph = parsed.graphs[0]
    runtime = Runtime(choose(), precision)
    fused = HybridRunner(parsed, ["gpu"] * len(graph.ops), runtime)
    assert [[op.name for op in run] for run, _ in fused.parts[0].steps] == [
        ["CONV_2D", "ADD"], ["CONV_2D", "ADD"], ["CONV_2D", "SUB"], ["CONV_2D"]]
    feeds = seeded_feeds(graph, 7)
    got = fused.run(feeds)
    assert runtime.built.count("conv.pointwise_conv2d") == 1, runtime.built
    want = run_reference(reference_interpreter(data, "k_shared_epilogues"), feeds)
    alone = HybridRunner(parsed, ["gpu"] * len(graph.ops), Runtime(choose(), precision), record=True).run(feeds)
    for name, g, a, w in zip(["ADD(a, s)", "ADD(s, b)", "SUB(s, c) RELU", "d"], got, alone, want):
        assert_within(g, w, precision, f"{name} fused vs reference")
        np.testing.assert_array_equal(g, a, err_msg=f"{name}: fused must store what the ops store one by one")
