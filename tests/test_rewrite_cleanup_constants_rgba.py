"""cleanup, fold-constants and rgb-to-rgba on generated models, each checked on the reference
interpreter against the original (exact rewrites: identical outputs)."""

import dataclasses

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.ir import build
from gpucompat.ir.opcodes import BUILTIN
from gpucompat.rewrites.cleanup import Cleanup
from gpucompat.rewrites.engine import RewriteContext, apply
from gpucompat.rewrites.fold_constants import FoldConstants
from gpucompat.rewrites.rgb_to_rgba import RgbToRgba
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from gpucompat.verification.fix_proof import verify
from models_fix import rewritten


def _names(model):
    return [op.name for op in model.graphs[0].ops]


def _without(*ops):
    """gpu-current minus some ops (as a generation that has no parser for them)."""
    prof = registry.get("gpu-current")
    return dataclasses.replace(prof, ops={k: v for k, v in prof.ops.items() if k not in {BUILTIN[o] for o in ops}})


def test_cleanup_removes_identity_ops_and_cancelling_transposes(models):
    model = ir.from_bytes(models.bytes("conv_relu"))
    g = model.graphs[0]
    conv = next(op for op in g.ops if op.name == "CONV_2D")
    y = conv.outputs[0]
    t1 = build.tensor(g, "t1", (1, 8, 16, 16), y.dtype)
    t2 = build.tensor(g, "t2", y.shape, y.dtype)
    t3 = build.tensor(g, "t3", y.shape, y.dtype)
    perm = build.constant(g, "perm", np.array([0, 3, 1, 2], dtype=np.int32))
    back = build.constant(g, "back", np.array([0, 2, 3, 1], dtype=np.int32))
    readers = list(y.consumers)
    at = g.op_index(conv) + 1
    g.insert_op(at, build.operator(g, "TRANSPOSE", [y, perm], [t1]))
    g.insert_op(at + 1, build.operator(g, "TRANSPOSE", [t1, back], [t2]))
    g.insert_op(at + 2, build.operator(g, "CAST", [t2], [t3]))
    for r in readers:
        r.inputs = [t3 if t is y else t for t in r.inputs]
    g.link()
    raw = ir.to_bytes(model)
    fixed, trace = rewritten(raw, Cleanup())
    assert _names(fixed) == _names(ir.from_bytes(models.bytes("conv_relu")))
    assert {n for e in trace.applied for n in e.nodes} >= {"op#1 TRANSPOSE 't1'", "op#2 TRANSPOSE 't2'"}
    assert verify(raw, ir.to_bytes(fixed), trace.safeties()).ok


def test_cleanup_turns_expand_dims_into_reshape_where_the_profile_lacks_it(models):
    fixed, trace = rewritten(models.bytes("stb_1d"), Cleanup())
    assert "EXPAND_DIMS" not in _names(fixed) and _names(fixed).count("RESHAPE") == 2
    assert verify(models.bytes("stb_1d"), ir.to_bytes(fixed), {"exact"}).ok


def test_fold_constants_folds_fp16_dequantize_only_where_the_profile_rejects_it(models):
    raw = models.bytes("fp16_weights")
    _, trace = rewritten(raw, FoldConstants())
    assert trace.applied == [] and {e.reason for e in trace.not_applied} == {"the profile takes it"}
    model = ir.from_bytes(raw)
    trace = apply(model, [FoldConstants()], RewriteContext(_without("DEQUANTIZE"), Options()))
    assert len(trace.applied) == 2 and _names(model) == ["CONV_2D"]
    assert model.graphs[0].ops[0].input(1).dtype_name == "FLOAT32"
    assert verify(raw, ir.to_bytes(model), trace.safeties()).ok  # exact: identical outputs


def test_fold_constants_densifies_sparse_weights(models):
    raw = models.bytes("sparse_weights")
    assert "DENSIFY" in _names(ir.from_bytes(raw))
    model = ir.from_bytes(raw)
    trace = apply(model, [FoldConstants()], RewriteContext(_without("DENSIFY"), Options()))
    assert [e.rewrite for e in trace.applied] == ["fold-constants"] and "DENSIFY" not in _names(model)
    assert not model.graphs[0].ops[0].input(1).is_sparse
    assert verify(raw, ir.to_bytes(model), {"exact"}).ok


@pytest.mark.parametrize("name", ["rgb_normalised", "rgb_two_convs", "rgb_depthwise"])
def test_rgb_to_rgba_ignores_the_alpha_channel(models, name):
    raw = models.bytes(name)
    fixed, trace = rewritten(raw, RgbToRgba())
    assert [e.rewrite for e in trace.applied] == ["rgb-to-rgba"]
    assert fixed.graphs[0].inputs[0].shape == (1, 8, 8, 4)
    result = verify(raw, ir.to_bytes(fixed), trace.safeties())  # same RGB plus a random alpha
    assert result.ok, result.record()


def test_rgb_to_rgba_refuses_a_pool_it_cannot_extend(models):
    fixed, trace = rewritten(models.bytes("rgb_pool"), RgbToRgba())
    assert trace.applied == []
    assert [e.reason for e in trace.not_applied] == \
        ["AVERAGE_POOL_2D cannot absorb a 4th channel (it would need a slice)"]


def test_rgb_to_rgba_carries_alpha_through_a_depthwise_conv(models):
    fixed, trace = rewritten(models.bytes("rgb_depthwise"), RgbToRgba())
    dw, pw = fixed.graphs[0].ops[2], fixed.graphs[0].ops[3]
    # multiplier 2: channel c feeds outputs 2c and 2c+1, so alpha's two outputs come last
    assert dw.input(1).shape == (1, 3, 3, 8) and not dw.input(1).data()[..., 6:].any()
    assert dw.input(2).data()[6:].tolist() == [0.0, 0.0]
    assert pw.input(1).shape == (8, 1, 1, 8) and not pw.input(1).data()[..., 6:].any()


def test_rgb_to_rgba_refuses_a_depthwise_conv_whose_alpha_outputs_would_show(models):
    _, trace = rewritten(models.bytes("rgb_depthwise_out"), RgbToRgba())
    assert trace.applied == [] and [e.reason for e in trace.not_applied] == ["'PartitionedCall:0' is a model output"]
