"""A two-input op linked into the producer of its SECOND input (opencl/fusion.py _next_link), the
executor's step beyond the delegate's rule (which links at the first input only): a residual
ADD(skip, conv(...)) as Keras' MobileNetV2 writes it runs in the conv's kernel. k_second_input's
execution plan:

    0 skip = CONV_2D(x) RELU6            read by 1 and by 3
    1 DEPTHWISE_CONV_2D(skip) -> 2 CONV_2D 1x1 -> 3 ADD(skip, .) -> 4 MUL(., 0.5) -> output
    5 CONV_2D(x) -> 6 SUB(per-channel const, .) RELU -> output    (order matters: SUB)
    7 CONV_2D(x) -> read by 8 SUB(skip, .) and by 9 MUL(., y)     (a second reader: no link)
    10 p = CONV_2D(x); 11 q = CONV_2D(x); 12 ADD(q, p) -> output  (q comes after p: ADD joins q)

Expected runs: [0], [1, 2, 3, 4] (the depthwise and 1x1 convs merged: in fp16 as the delegate's
special selector merges them, in fp32 as the executor merges such pairs for speed; the ADD and the
MUL linked after the pair), [5, 6], [7], [8], [9], [10], [11, 12]. The fused model must compute what the reference
interpreter computes, and what the ops compute one by one.
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

pytestmark = pytest.mark.opencl

SHAPE = [1, 6, 7, 8]


@builder("k_second_input")
def k_second_input() -> bytes:
    """The plan in the module docstring, seeded weights."""
    gen = np.random.default_rng(27)
    m = IRModel()
    x = m.input("x", SHAPE)
    y = m.input("y", SHAPE)

    def weights(name: str, shape) -> int:
        return m.const(name, (gen.standard_normal(shape) * 0.3).astype(np.float32))

    def conv(name: str, src: int, size: int, activation: str = "NONE") -> int:
        return m.op("CONV_2D", [src, weights(f"{name}/w", [8, size, size, 8]), weights(f"{name}/b", [8])], SHAPE,
                    options=conv_options(activation=activation), output_name=name)

    skip = conv("skip", x, 3, "RELU6")
    dw = m.op("DEPTHWISE_CONV_2D", [skip, weights("dw/w", [1, 3, 3, 8]), weights("dw/b", [8])], SHAPE,
              options=options("DepthwiseConv2D", padding="SAME", strideW=1, strideH=1, depthMultiplier=1))
    residual = m.op("ADD", [skip, conv("project", dw, 1)], SHAPE, options=options("Add"))
    halved = m.op("MUL", [residual, m.const("half", np.float32(0.5))], SHAPE, options=options("Mul"))
    ordered = m.op("SUB", [weights("sub/c", [8]), conv("subtracted", x, 1)], SHAPE,
                   options=options("Sub", activation="RELU"))
    twice = conv("twice", x, 1)
    diff = m.op("SUB", [skip, twice], SHAPE, options=options("Sub"))
    scaled = m.op("MUL", [twice, y], SHAPE, options=options("Mul"))
    p = conv("p", x, 1)
    later = m.op("ADD", [conv("q", x, 1), p], SHAPE, options=options("Add"))
    m.output(halved, ordered, diff, scaled, later)
    return m.bytes()


def runs(runner: HybridRunner) -> list[list[int]]:
    return [[op.index for op in run] for run, _ in runner.parts[0].steps]


@pytest.fixture(scope="module")
def model(models):
    data = models.bytes("k_second_input")
    parsed = ir.from_bytes(data)
    assert [op.name for op in parsed.graphs[0].ops] == [
        "CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D", "ADD", "MUL", "CONV_2D", "SUB", "CONV_2D", "SUB", "MUL",
        "CONV_2D", "CONV_2D", "ADD"]
    return data, parsed


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_an_op_links_into_the_producer_of_its_second_input(model, precision):
    data, parsed = model
    graph = parsed.graphs[0]
    runtime = Runtime(choose(), precision)
    fused = HybridRunner(parsed, ["gpu"] * len(graph.ops), runtime)
    assert runs(fused) == [[0], [1, 2, 3, 4], [5, 6], [7], [8], [9], [10], [11, 12]]
    feeds = seeded_feeds(graph, 4)
    want = run_reference(reference_interpreter(data, "k_second_input"), feeds)
    single = HybridRunner(parsed, ["gpu"] * len(graph.ops), runtime, record=True).run(feeds)
    names = ["residual", "ordered", "diff", "scaled", "later"]
    for got, alone, ref, name in zip(fused.run(feeds), single, want, names):
        assert_within(got, ref, precision, f"{name} fused vs reference")
        assert_within(got, alone, precision, f"{name} fused vs one by one")
        if name in ("ordered", "later"):  # linked ops alone (residual also merges the depthwise + 1x1 pair)
            np.testing.assert_array_equal(got, alone, err_msg=f"{name}: the same rounding points, the same values")
