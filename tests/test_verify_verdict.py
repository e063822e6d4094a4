"""verify's verdict is right both ways: the model passes at the defaults, and each of eight
deliberately broken kernels makes it FAIL, with --localize naming the broken op.

Each breakage is a test-only monkeypatch of a lowering's helper in gpucompat.opencl.ops (no product
kernel is edited): the kernel runs with a wrong parameter, as a real bug would make it. The model
(tests/models_verdict.py) chains CONV_2D (bias, RELU), CONV_2D (strides 2, 1), SLICE, ADD and
RESIZE_BILINEAR; the op a breakage should be found at is looked up in the model, by type. Four of
the breakages also fail a real model, MediaPipe's palm_detection_lite.

Cost: about 50 s (16 verify runs with localization on the small model, 4 on the real one).
"""

import numpy as np
import pytest

import models_verdict  # noqa: F401  (registers builders)
from gpucompat import ir
from gpucompat.opencl.executor import Executor
from gpucompat.opencl.ops import conv, movement, resize
from gpucompat.verification.session import Settings, verify_model

RELU, RELU_N1_TO_1 = 1, 2  # ActivationFunctionType


def off_by_one_padding(monkeypatch):
    original = conv.padding
    monkeypatch.setattr(conv, "padding", lambda *args: original(*args) + (args[-1] == conv.SAME))


def dropped_bias(monkeypatch):
    def no_bias(ex, op, index, channels, multiple=4):
        return ex.runtime.weights(np.zeros(-(-channels // multiple) * multiple, np.float32))

    monkeypatch.setattr(conv, "bias_of", no_bias)


def transposed_weight(monkeypatch):
    original = conv.weights_of
    monkeypatch.setattr(conv, "weights_of", lambda ex, op, i: original(ex, op, i).transpose(0, 2, 1, 3))


def wrong_activation(monkeypatch):
    original = conv.activation
    monkeypatch.setattr(conv, "activation", lambda op: RELU_N1_TO_1 if original(op) == RELU else original(op))


class _SwappedStrides:
    def __init__(self, options):
        self.options = options

    def __getattr__(self, name):
        swap = {"strideH": "strideW", "strideW": "strideH"}
        return getattr(self.options, swap.get(name, name))


def swapped_stride(monkeypatch):
    original = conv.options
    monkeypatch.setattr(conv, "options", lambda op: _SwappedStrides(original(op)))


def wrong_channel_slice(monkeypatch):
    original = movement._const_ints

    def shifted(op, index):
        values = original(op, index)
        return values + np.eye(len(values), dtype=values.dtype)[-1] if op.name == "SLICE" and index == 1 else values

    monkeypatch.setattr(movement, "_const_ints", shifted)


def wrong_broadcast(monkeypatch):
    original = Executor.tensor_as

    def as_scalar(ex, t, rank):
        stored, dims = original(ex, t, rank)
        return (stored, (1, 1, 1, 1)) if t.is_constant and len(t.shape) == 1 else (stored, dims)

    monkeypatch.setattr(Executor, "tensor_as", as_scalar)


def wrong_resize_mode(monkeypatch):
    monkeypatch.setitem(resize.KERNELS, "RESIZE_BILINEAR", resize.KERNELS["RESIZE_NEAREST_NEIGHBOR"])


def first(op_name: str, where=lambda op: True):
    return lambda ops: next(op for op in ops if op.name == op_name and where(op))


# breakage -> the op it must be found at
BREAKAGES = {
    off_by_one_padding: first("CONV_2D"),
    dropped_bias: first("CONV_2D"),
    transposed_weight: first("CONV_2D"),
    wrong_activation: first("CONV_2D", lambda op: op.options.fusedActivationFunction == RELU),
    swapped_stride: first("CONV_2D", lambda op: op.options.strideH != op.options.strideW),
    wrong_channel_slice: first("SLICE"),
    wrong_broadcast: first("ADD"),
    wrong_resize_mode: first("RESIZE_BILINEAR"),
}


def run(models, **settings):
    return verify_model(models.path("verdict_kernels"), Settings(runs=2, cache_dir="", **settings))


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_the_intact_kernels_pass_at_the_defaults(models, precision):
    result = run(models, precision=precision)
    assert result.passed, result.record()["outputs"]


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda b: b.__name__)
def test_a_broken_kernel_fails_and_localize_names_its_op(models, monkeypatch, breakage, precision):
    breakage(monkeypatch)
    result = run(models, precision=precision, localize=True)
    assert not result.passed, f"{breakage.__name__} passed: {result.record()['outputs']}"
    expected = BREAKAGES[breakage](ir.from_bytes(models.bytes("verdict_kernels")).graphs[0].ops)
    bad = result.first_divergent_op
    assert bad is not None and (bad["index"], bad["op"]) == (expected.index, expected.name), bad


# On a real model: the same breakages, where palm_detection_lite has the ops they break (its
# strides are square and it has no per-channel constant operand or SLICE). The op named is of the
# broken family; which one comes first depends on the weights (a bias may be zero).
REAL_BREAKAGES = {
    dropped_bias: {"CONV_2D", "DEPTHWISE_CONV_2D"},
    transposed_weight: {"CONV_2D", "DEPTHWISE_CONV_2D"},
    off_by_one_padding: {"CONV_2D", "DEPTHWISE_CONV_2D"},
    wrong_resize_mode: {"RESIZE_BILINEAR"},
}


@pytest.mark.parametrize("breakage", REAL_BREAKAGES, ids=lambda b: b.__name__)
def test_a_broken_kernel_fails_a_real_model(real_models, monkeypatch, breakage):
    path = str(real_models["palm_detection_lite"])  # intact, it passes: test_verify_real_models.py
    breakage(monkeypatch)
    result = verify_model(path, Settings(runs=1, cache_dir="", localize=True))
    assert not result.passed
    assert result.first_divergent_op["op"] in REAL_BREAKAGES[breakage], result.first_divergent_op


def test_a_fail_line_says_the_error_exceeds_the_tolerance(models, monkeypatch):
    from rich.console import Console

    from gpucompat.output.verify_view import render

    dropped_bias(monkeypatch)
    result = run(models)
    console = Console(record=True, width=400)
    render(console, result.record(), result.ops_gpu, result.ops_total)
    text = console.export_text()
    line = next(line for line in text.splitlines() if "relative error" in line)
    assert "exceeds atol 1e-05 + rtol 0.001 x max|ref|" in line and "within" not in line, text
    assert text.rstrip().splitlines()[-1].startswith("FAILED")
