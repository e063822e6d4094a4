"""`fix` raises the `min_runtime_version` metadata when a rewritten op needs a newer runtime, and
never lowers it. Versions from tensorflow/lite/tools/versioning/runtime_version.cc."""

import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.fixing.run import rewrite_model
from gpucompat.fixing.runtime_version import MINIMUM_RUNTIME
from gpucompat.rewrites import select
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options

# The fix test models that some rewrite changes under gpu-current.
FIX_MODELS = ["stb_same_bias_relu", "stb_valid_odd", "stb_depthwise", "stb_explicit_pad", "stb_pad_cropped",
              "rgb_normalised", "rgb_two_convs", "rgb_depthwise", "sub_l2norm", "sub_mirror_symmetric", "sub_gather",
              "sub_broadcast_concat", "sub_broadcast_add"]


def recorded(model: ir.Model) -> str:
    return model.metadata()["min_runtime_version"].split(b"\0", 1)[0].decode()


def test_a_dilated_depthwise_needs_runtime_1_12(models, tmp_path):
    # fold-space-to-batch turns the depthwise convolution into a dilated one: version 2, which
    # runtime_version.cc maps to 1.12.0; the converter recorded 1.6.0 (SPACE_TO_BATCH_ND v1).
    src = models.path("stb_depthwise")
    assert recorded(ir.load(src)) == "1.6.0"
    out = str(tmp_path / "fixed.tflite")
    r = gpucompat("fix", src, "-o", out)
    assert r.returncode == 0, r.stderr
    fixed = ir.load(out)
    assert [(op.name, op.version) for op in fixed.graphs[0].ops] == [("DEPTHWISE_CONV_2D", 2)]
    assert fixed.metadata()["min_runtime_version"] == b"1.12.0" + b"\0" * 10


def test_the_recorded_version_is_never_lowered(models):
    # The folded CONV_2D stays at version 1 (runtime 1.5.0), below the recorded 1.6.0.
    model = ir.from_bytes(models.bytes("stb_same_bias_relu"))
    before = model.metadata()["min_runtime_version"]
    trace = rewrite_model(model, select(), registry.get("gpu-current"), Options())
    assert trace.applied
    assert model.metadata()["min_runtime_version"] == before


@pytest.mark.parametrize("name", FIX_MODELS)
def test_every_op_version_a_rewrite_adds_has_a_known_minimum_runtime(models, name):
    # The table lists only what rewrites create; a new (op, version) missing from it would leave
    # min_runtime_version unchecked.
    model = ir.from_bytes(models.bytes(name))
    before = {(op.name, op.version) for g in model.graphs for op in g.ops}
    trace = rewrite_model(model, select(unsafe=True), registry.get("gpu-current"), Options())
    added = {(op.name, op.version) for g in model.graphs for op in g.ops} - before
    assert trace.applied
    assert added <= set(MINIMUM_RUNTIME), added - set(MINIMUM_RUNTIME)
