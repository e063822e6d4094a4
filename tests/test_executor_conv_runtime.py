"""CONV_2D with runtime (non-constant) weights against the reference interpreter: the filter is a
model input, transposed to OHWI by the model and packed into the conv kernel's layout on the device
before every run (opencl/conv.cl pack_conv_weights, after the delegate's ConverterToConvWeights).
Shapes: 3x3 SAME with a constant bias and RELU, 2x3 VALID stride 2 with 17 outputs (a partial
group of 16), 1x1 (the pointwise kernel) with 20 outputs; each with its bias and with none."""

import pytest

from gpucompat import ir
from gpucompat.opencl.executor import UnsupportedOp
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from modelgen import builder, const, convert_fn, tf
from test_executor_kernels import assert_within, compare_all_gpu, runtimes  # noqa: F401  (fixture)

pytestmark = pytest.mark.opencl


@builder("k_conv_runtime_weights")
def k_conv_runtime_weights() -> bytes:
    t = tf()

    def f(x, w_same, w_strided, w_pointwise):
        return [t.nn.relu(t.nn.conv2d(x, w_same, 1, "SAME") + const([4], 1)),
                t.nn.conv2d(x, w_strided, 2, "VALID") + const([17], 2),
                t.nn.conv2d(x, w_pointwise, 1, "VALID") + const([20], 3)]

    return convert_fn(f, [([1, 7, 9, 5], t.float32), ([3, 3, 5, 4], t.float32), ([2, 3, 5, 17], t.float32),
                          ([1, 1, 5, 20], t.float32)])


def runtime_convs(model: ir.Model) -> list[ir.Op]:
    """The model's CONV_2D ops, each checked to read a runtime filter (what these tests are about)."""
    convs = [op for op in model.graphs[0].ops if op.name == "CONV_2D"]
    assert len(convs) == 3 and all(not op.inputs[1].is_constant for op in convs)
    return convs


@builder("k_conv_runtime_weights_no_bias")
def k_conv_runtime_weights_no_bias() -> bytes:
    """The same convolutions with the bias input removed (index -1: an optional input absent)."""
    model = ir.from_bytes(k_conv_runtime_weights())
    for op in runtime_convs(model):
        op.fb.inputs[2] = -1
    return ir.to_bytes(model)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["k_conv_runtime_weights", "k_conv_runtime_weights_no_bias"])
def test_conv_with_runtime_weights_matches_reference(models, runtimes, name, precision):  # noqa: F811
    runtime_convs(ir.from_bytes(models.bytes(name)))
    compare_all_gpu(models, runtimes[precision], name)


def test_new_weights_are_packed_every_run(models, runtimes):  # noqa: F811
    """One runner, two runs with different filters: each matches its own reference, so the filter
    is packed again every run and not kept from the first."""
    data = models.bytes("k_conv_runtime_weights")
    model = ir.from_bytes(data)
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])
    reference = reference_interpreter(data, "k_conv_runtime_weights")
    for seed in (1, 2):
        feeds = seeded_feeds(model.graphs[0], seed)
        for got, want in zip(runner.run(feeds), run_reference(reference, feeds)):
            assert_within(got, want, "fp32", f"seed {seed}")



def test_runtime_bias_is_refused(models, runtimes):  # noqa: F811
    """A conv whose bias is computed at run time (here: made a model input) is refused with the op
    named, not run with a zero bias: the delegate takes at most the input and the weights at run
    time."""
    model = ir.from_bytes(models.bytes("k_conv_runtime_weights"))
    graph = model.graphs[0]
    bias = runtime_convs(model)[1].inputs[2]
    bias.fb.buffer = 0  # no data: a runtime tensor
    graph.inputs.append(bias)
    model = ir.from_bytes(ir.to_bytes(model))
    with pytest.raises(UnsupportedOp, match=r"CONV_2D: a runtime \(non-constant\) bias is not supported"):
        HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])
