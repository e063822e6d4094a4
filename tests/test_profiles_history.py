"""The delegate generations side by side on models where they differ (rules/support/profiles/*.py)."""

import pytest

from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options


def verdicts(models, name, profile):
    result = check_model(ir.load(models.path(name)), registry.get(profile), Options())
    return result, {o.op: o.verdict for o in result.ops}


def test_registry_lists_generations_oldest_first():
    assert registry.names()[:4] == ["gpu-2019-docs", "gpu-2019", "gpu-2020", "gpu-current"]


@pytest.mark.parametrize("profile, ok, message", [
    ("gpu-2019", False, "Operation is not supported."),  # no MAXIMUM parser in 2019
    ("gpu-2020", False, "Expected 1 const input tensor(s), but node has 0 const input(s)."),  # const only
    ("gpu-current", True, None),
])
def test_maximum_of_two_runtime_inputs(models, profile, ok, message):
    _, v = verdicts(models, "ops_binary", profile)
    assert v["MAXIMUM"].ok is ok and v["MAXIMUM"].runtime_message == message


def test_prefix_stops_at_the_first_unsupported_op(models):
    """gpu-2019 on ops_binary: GPU ops are exactly the plan prefix before the first refusal."""
    result, _ = verdicts(models, "ops_binary", "gpu-2019")
    first_refused = next(i for i, o in enumerate(result.ops) if not o.verdict.ok)
    assert [o.placement for o in result.ops] == ["gpu"] * first_refused + ["cpu"] * (len(result.ops) - first_refused)


def test_fused_sigmoid_was_refused_until_2021(models):
    for profile, ok in (("gpu-2019", False), ("gpu-2020", False), ("gpu-current", True)):
        _, v = verdicts(models, "edit_conv_sigmoid", profile)
        assert v["CONV_2D"].ok is ok, profile
    _, v = verdicts(models, "edit_conv_sigmoid", "gpu-2020")
    assert v["CONV_2D"].runtime_message == "TfLiteFusedActivation.kTfLiteActSigmoid"


def test_five_dimensional_tensors_failed_at_parse_before_the_rank_filter(models):
    result, v = verdicts(models, "ops_rank5", "gpu-2020")
    assert v["RELU"].layer == "parse" and "bad input dims size: 5" in v["RELU"].runtime_message
    assert result.delegation_fails
    _, v = verdicts(models, "ops_rank5", "gpu-current")
    assert v["RELU"].layer == "partition"


def test_2019_has_no_quantized_ops(models):
    _, v = verdicts(models, "ops_int8", "gpu-2019")
    assert v["QUANTIZE"].runtime_message == "Operation is not supported."
    # an int8 CONV_2D is version 3 (op_version.cc), above the 2019 cap of 1, checked before types
    assert v["CONV_2D"].runtime_message == "Max version supported: 1. Requested version 3."


def test_2019_docs_list_only_the_documented_ops(models):
    _, v = verdicts(models, "ops_unary", "gpu-2019-docs")
    assert not v["ABS"].ok and "cannot be handled by this delegate" in v["ABS"].runtime_message
    assert v["RELU"].ok and v["LOGISTIC"].ok
