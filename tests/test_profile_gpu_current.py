"""gpu-current on one-op models: which ops the delegate takes, and the reason and layer a user sees
for those it refuses. Expected values come from the runtime's rules (model_builder.cc GetOpsToReplace), worked out
per case; messages are the runtime's own (model_builder.cc, gpu_compatibility.cc)."""

import pytest

import roundtrip
from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from modelgen import BUILDERS

CURRENT = registry.get("gpu-current")
OP_MODELS = sorted(n for n in BUILDERS if n.startswith(("ops_", "edit_")))


def judge(models, name, profile=CURRENT, **options):
    """check_model on a generated model."""
    return check_model(ir.load(models.path(name)), profile, Options(**options))


def ops_named(result, op):
    """Results of every op called `op`, in plan order."""
    return [o for o in result.ops if o.op == op]


@pytest.mark.parametrize("name, ops", [
    ("ops_unary", {"ABS", "COS", "ELU", "EXP", "LOG", "LOGISTIC", "NEG", "RSQRT", "SIN", "SQRT", "SQUARE", "TANH",
                   "SIGN", "RELU", "RELU6", "LEAKY_RELU"}),
    ("ops_binary", {"ADD", "SUB", "MUL", "DIV", "POW", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM"}),
    ("ops_nn", {"CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV", "AVERAGE_POOL_2D", "MAX_POOL_2D",
                "FULLY_CONNECTED", "SOFTMAX", "CONCATENATION", "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"}),
    ("ops_shape", {"MEAN", "REDUCE_MAX", "SUM", "PAD", "MIRROR_PAD", "SLICE", "STRIDED_SLICE", "TRANSPOSE", "TILE",
                   "SPLIT", "SPLIT_V", "GATHER", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE", "CUMSUM"}),
    ("ops_logic", {"GREATER", "LESS", "SELECT", "CAST", "ONE_HOT"}),
    ("ops_prelu", {"PRELU"}),
    ("ops_int8", {"QUANTIZE", "CONV_2D", "DEQUANTIZE"}),
])
def test_supported_ops_are_all_delegated(models, name, ops):
    result = judge(models, name)
    assert ops <= {o.op for o in result.ops}, "the converter did not emit every op this model is for"
    assert result.fully_delegated, [(o.op, o.verdict.reason) for o in result.ops if o.placement != "gpu"]


@pytest.mark.parametrize("name, op, layer, message", [
    ("edit_conv_v7", "CONV_2D", "partition", "Max version supported: 6. Requested version 7."),
    ("edit_strided_slice_v5", "STRIDED_SLICE", "partition", "Max version supported: 4. Requested version 5."),
    ("edit_conv_sign_bit", "CONV_2D", "partition", "TfLiteFusedActivation.kTfLiteActSignBit"),
    ("edit_softmax_beta", "SOFTMAX", "partition", "Softmax.beta != 1 is not supported."),
    ("edit_resize_both_flags", "RESIZE_BILINEAR", "partition",
     "If half_pixel_centers is True, align_corners must be False."),
    ("edit_mirror_symmetric", "MIRROR_PAD", "partition", "Only Reflective padding is supported"),
    ("ops_one_hot_axis0", "ONE_HOT", "partition", "axis must be -1 or last dim"),
    ("ops_broadcast", "ADD", "partition", "Doesn't support broadcasting - input0: [1,4,4,8], input1: [4,8]"),
    ("ops_rank5", "RELU", "partition", "OP is supported, but tensor type/shape isn't compatible."),
    ("ops_logic_rejects", "GATHER", "partition", "Only accept INT32 indices"),
    ("ops_logic_rejects", "GREATER", "partition", "Not supported logical op case."),
])
def test_partition_level_rejections_run_on_the_cpu(models, name, op, layer, message):
    result = judge(models, name)
    refused = [o for o in ops_named(result, op) if not o.verdict.ok]
    assert len(refused) == 1
    assert refused[0].placement == "cpu" and refused[0].verdict.layer == layer
    assert message in refused[0].verdict.runtime_message
    assert not result.delegation_fails


@pytest.mark.parametrize("name, op, message", [
    ("ops_misc_rejects", "DIV", "No support of few identical inputs in the same operation."),
    ("ops_scalar", "EXP", "has bad input dims size: 0."),
    ("ops_reverse_slice", "STRIDED_SLICE", "Reverse slices are not supported."),
    ("edit_add_sign_bit", "ADD", "TfLiteFusedActivation.kTfLiteActSignBit"),
])
def test_parse_level_rejections_fail_the_whole_delegation(models, name, op, message):
    result = judge(models, name)
    parse = [o for o in ops_named(result, op) if not o.verdict.ok and o.verdict.layer == "parse"]
    assert len(parse) == 1 and message in parse[0].verdict.runtime_message
    assert result.delegation_fails and result.ops_gpu == 0


def test_bool_casts_need_a_producer_and_a_reader(models):
    """ops_logic_rejects: cast(x >= y) is a graph output; cast(b) reads a bool graph input."""
    result = judge(models, "ops_logic_rejects")
    messages = sorted(o.verdict.runtime_message for o in ops_named(result, "CAST"))
    assert messages == ["Cast from bool not supported for outputs", "Not supported cast case"]
    # GREATER_EQUAL feeds a CAST with float output, so the comparison itself is accepted.
    assert [o.verdict.ok for o in ops_named(result, "GREATER_EQUAL")] == [True]


def test_floor_ops_have_only_opengl_kernels(models):
    on_cl = judge(models, "ops_floor")
    assert {o.op: o.verdict.layer for o in on_cl.ops} == {"FLOOR": "backend", "FLOOR_DIV": "backend",
                                                          "FLOOR_MOD": "backend"}
    assert judge(models, "ops_floor", backend="gl").fully_delegated


def test_opengl_gaps(models):
    """Without OpenCL SPLIT/SPLIT_V are excluded before partitioning; TRANSPOSE, GATHER, CUMSUM
    and the reductions have no OpenGL kernel (backend layer)."""
    result = judge(models, "ops_shape", backend="gl")
    by_op = {o.op: o.verdict for o in result.ops}
    assert by_op["SPLIT"].layer == by_op["SPLIT_V"].layer == "partition"
    assert not by_op["SPLIT"].ok and "OpenCL" in by_op["SPLIT"].reason
    for op in ("TRANSPOSE", "GATHER", "CUMSUM", "REDUCE_MAX", "SUM"):
        assert not by_op[op].ok and by_op[op].layer == "backend", op
    assert by_op["PAD"].ok and by_op["MEAN"].ok  # MEAN over H, W to 1x1 has a GL shader
    sign = [o.verdict for o in judge(models, "ops_unary", backend="gl").ops if o.op == "SIGN"]
    assert sign[0].layer == "backend"


def test_quantized_ops_need_the_quant_flag(models):
    result = judge(models, "ops_int8", allow_quant=False)
    by_op = {o.op: o.verdict for o in result.ops}
    assert by_op["QUANTIZE"].reason == by_op["DEQUANTIZE"].reason == "needs quantized ops enabled"
    assert "INT8" in by_op["CONV_2D"].reason
    assert result.ops_gpu == 0


@pytest.mark.parametrize("name", OP_MODELS)
def test_round_trip(models, name):
    """Load -> save keeps every part of the model, and (for converted models) its outputs."""
    data = models.bytes(name)
    model = ir.from_bytes(data)
    again = ir.to_bytes(model)
    assert roundtrip.structure(ir.from_bytes(again)) == roundtrip.structure(model)
    if not name.startswith("edit_"):
        for a, b in zip(roundtrip.run(data), roundtrip.run(again), strict=True):
            assert a.tobytes() == b.tobytes() and a.shape == b.shape
