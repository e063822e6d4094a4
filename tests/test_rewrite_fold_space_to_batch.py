"""fold-space-to-batch on generated models: the padding and dilation worked out by hand from
array_ops.py required_space_to_batch_paddings, outputs compared with the original on the reference interpreter."""

import pytest
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rewrites.fold_space_to_batch import FoldSpaceToBatch
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from gpucompat.verification.fix_proof import verify
from models_fix import rewritten

SAME, VALID = fb.Padding.SAME, fb.Padding.VALID


# model -> (conv type, dilation (h, w), conv padding, explicit PAD amounts on H and W or None)
CASES = {
    # k=3, b=2, H=13: STB paddings (2, 3), crops (0, 1) -> T = 2, B = 2 = SAME at dilation 2
    "stb_same_bias_relu": ("CONV_2D", (2, 2), SAME, None),
    # paddings (0, 1), crops (0, 1) -> T = B = 0 = VALID
    "stb_valid_odd": ("CONV_2D", (2, 2), VALID, None),
    # k=3, b=3, H=10: paddings (3, 5), crops (0, 2) -> (3, 3) = SAME at dilation 3
    "stb_depthwise": ("DEPTHWISE_CONV_2D", (3, 3), SAME, None),
    # 1-D along W (expand axis 1): W gets dilation 2 and SAME; H is the unit axis
    "stb_1d": ("CONV_2D", (1, 2), SAME, None),
    # paddings (3, 1) x (2, 2), no crops: neither SAME (2, 2) nor VALID on H -> PAD + VALID
    "stb_explicit_pad": ("CONV_2D", (2, 2), VALID, [[0, 0], [3, 1], [2, 2], [0, 0]]),
    # inner PAD of 1 row (= 2 rows after BTS) removed by crop 2: T = 2 - 0 = 2, B = 2 -> SAME
    "stb_pad_cropped": ("CONV_2D", (2, 2), SAME, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_folds_into_a_dilated_conv(models, name):
    conv_type, dilation, padding, explicit = CASES[name]
    raw = models.bytes(name)
    model, trace = rewritten(raw, FoldSpaceToBatch())
    assert [e.rewrite for e in trace.applied] == ["fold-space-to-batch"]
    ops = model.graphs[0].ops
    names = [op.name for op in ops]
    assert "SPACE_TO_BATCH_ND" not in names and "BATCH_TO_SPACE_ND" not in names and "PAD" not in names[1:]
    conv = next(op for op in ops if op.name == conv_type)
    assert (conv.options.dilationHFactor, conv.options.dilationWFactor) == dilation
    assert conv.options.padding == padding
    if explicit is None:
        assert "PAD" not in names
    else:
        pad = conv.input(0).producer
        assert pad.name == "PAD" and pad.input(1).data().tolist() == explicit
    fixed = ir.to_bytes(model)
    result = verify(raw, fixed, {"equivalent"})
    assert result.ok, result.record()


@pytest.mark.parametrize("name", ["stb_same_bias_relu", "stb_valid_odd", "stb_depthwise"])
def test_conv_only_models_become_fully_delegated(models, name):
    """Nothing but conv, bias and activation is left, all of which gpu-current takes."""
    model, _ = rewritten(models.bytes(name), FoldSpaceToBatch())
    result = check_model(ir.from_bytes(ir.to_bytes(model)), registry.get("gpu-current"), Options())
    assert result.fully_delegated and result.partitions_delegated == 1


def test_dynamic_batch_survives(models):
    model, _ = rewritten(models.bytes("stb_same_bias_relu"), FoldSpaceToBatch())
    g = model.graphs[0]
    assert g.inputs[0].signature == (-1, 13, 13, 4)
    assert g.outputs[0].signature == (-1, 13, 13, 8)


REFUSALS = {
    "stb_stride2": "conv stride 2",
    "stb_pad_kept": "a nonzero PAD adds rows the crops do not remove",
    "stb_two_readers": "space-to-batch output has more than one reader",
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refuses_with_the_reason(models, name):
    model, trace = rewritten(models.bytes(name), FoldSpaceToBatch())
    assert trace.applied == []
    assert [e.reason for e in trace.not_applied] == [REFUSALS[name]]
    assert "SPACE_TO_BATCH_ND" in [op.name for op in model.graphs[0].ops]


@pytest.mark.parametrize("which,reason", [(2, "block shape or paddings not constant"), (None, "crops not constant")])
def test_refuses_runtime_paddings_and_crops(models, which, reason):
    """Turn the paddings (STB input 2) or crops (BTS input 2) into a runtime graph input."""
    model = ir.from_bytes(models.bytes("stb_same_bias_relu"))
    g = model.graphs[0]
    op = next(o for o in g.ops if o.name == ("SPACE_TO_BATCH_ND" if which else "BATCH_TO_SPACE_ND"))
    t = op.input(2)
    t.fb.buffer = 0
    g.inputs.append(t)
    _, trace = rewritten(ir.to_bytes(model), FoldSpaceToBatch())
    assert trace.applied == [] and [e.reason for e in trace.not_applied] == [reason]
