"""The substitute family on generated models: the rejected op is gone, the model is more
delegated under the profile that rejected it, and the outputs match the original on the
reference interpreter (exact substitutions: identical; L2_NORMALIZATION: <= 1e-5 relative)."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir, rewrites
from gpucompat.placement import check_model
from gpucompat.rewrites.engine import RewriteContext, apply
from gpucompat.rewrites.substitute_gather import index_box
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from gpucompat.verification.fix_proof import input_specs, verify
from gpucompat.verification.inputs import seeded
from irbuild import options


def _names(model):
    return [op.name for op in model.graphs[0].ops]


def fixed(models, name, profile="gpu-current", backend="cl"):
    """(original bytes, fixed model, trace) with every substitution, under profile/backend."""
    raw = models.bytes(name)
    model = ir.from_bytes(raw)
    context = RewriteContext(registry.get(profile), Options(backend=backend))
    trace = apply(model, rewrites.select(["substitute"]), context)
    return raw, model, trace


def delegation(data, profile="gpu-current", backend="cl"):
    """(ops on the GPU, ops in all, fully delegated) as `check` judges the model."""
    model = data if isinstance(data, ir.Model) else ir.from_bytes(data)
    r = check_model(ir.from_bytes(ir.to_bytes(model)), registry.get(profile), Options(backend=backend))
    return r.ops_gpu, r.ops_total, r.fully_delegated


def assert_fixed(raw, model, trace, profile="gpu-current", backend="cl"):
    """The fix is proven on the reference interpreter and leaves everything on the GPU."""
    assert trace.applied
    v = verify(raw, ir.to_bytes(model), trace.safeties())
    assert v.ok, v
    assert not delegation(raw, profile, backend)[2]
    gpu, total, full = delegation(model, profile, backend)
    assert full and gpu == total


def test_l2_normalization_becomes_the_kernels_own_arithmetic(models):
    raw, model, trace = fixed(models, "sub_l2norm")
    assert _names(model) == ["CONV_2D", "SQUARE", "SUM", "SQRT", "MAXIMUM", "DIV", "CONV_2D"]
    assert [e.safety for e in trace.applied] == ["equivalent"]
    assert_fixed(raw, model, trace)


def test_l2_normalization_keeps_zero_vectors_finite(models):
    raw, model, trace = fixed(models, "sub_l2norm_zeros")
    # the seeded inputs really contain all-zero channel vectors after RELU(x - 1)
    x = seeded(input_specs(raw))[0][0]
    assert (np.maximum(x - 1, 0).max(axis=-1) == 0).any()
    assert_fixed(raw, model, trace)


def test_l2_normalization_is_refused_where_the_backend_cannot_sum(models):
    raw = models.bytes("sub_l2norm")
    before = ir.from_bytes(raw)
    counts = len(before.graphs[0].tensors), len(before.buffers)
    _, model, trace = fixed(models, "sub_l2norm", backend="gl")
    assert not trace.applied
    [entry] = trace.not_applied
    assert entry.rewrite == "substitute-l2-normalization"
    assert entry.reason.startswith("the profile rejects the replacement SUM as well")
    # the refused trial left no tensor or buffer behind
    assert (len(model.graphs[0].tensors), len(model.buffers)) == counts


def test_symmetric_mirror_pad_becomes_row_slices(models):
    raw, model, trace = fixed(models, "sub_mirror_symmetric")
    # paddings (2, 1) on H: 3 rows and a concat; (1, 1) on W: 2 columns and a concat
    assert _names(model) == ["CONV_2D", *["SLICE"] * 3, "CONCATENATION", *["SLICE"] * 2, "CONCATENATION", "CONV_2D"]
    assert [e.safety for e in trace.applied] == ["exact"]
    assert_fixed(raw, model, trace)


def test_reflect_mirror_pad_uses_strided_slices_on_a_generation_without_slice(models):
    raw, model, trace = fixed(models, "sub_mirror_reflect", profile="gpu-2019")
    assert "MIRROR_PAD" not in _names(model) and "SLICE" not in _names(model)
    assert _names(model).count("STRIDED_SLICE") == 5  # (1, 2) rows + (2, 0) columns
    assert_fixed(raw, model, trace, profile="gpu-2019")


def test_reflect_mirror_pad_the_profile_takes_is_left_alone(models):
    _, model, trace = fixed(models, "sub_mirror_reflect")
    assert "MIRROR_PAD" in _names(model) and not trace.applied and not trace.not_applied


def test_mirror_pad_of_a_2d_tensor_is_refused(models):
    # SLICE is tried first, then STRIDED_SLICE; the delegate takes neither on 2-D tensors
    _, model, trace = fixed(models, "sub_mirror_2d")
    assert "MIRROR_PAD" in _names(model)
    assert [e.reason for e in trace.not_applied] == [
        "the profile rejects the replacement STRIDED_SLICE as well: input has rank 2; only 3 or 4-D is supported"]


def test_gathers_that_select_a_slice_become_slices_without_opengl(models):
    raw, model, trace = fixed(models, "sub_gather", backend="gl")
    names = _names(model)
    assert "GATHER_ND" not in names and names.count("GATHER") == 1
    assert names.count("SLICE") == 2 and names.count("STRIDED_SLICE") == 1 and names.count("RESHAPE") == 1
    assert [e.reason for e in trace.not_applied] == [
        "indices do not select a slice (not a row-major box of ascending progressions)"]
    assert verify(raw, ir.to_bytes(model), trace.safeties()).ok and trace.safeties() == {"exact"}


def test_gather_nd_and_int64_gather_become_slices_on_opencl(models):
    raw, model, trace = fixed(models, "sub_gather")
    # GATHER with INT32 indices runs on OpenCL: only GATHER_ND and the INT64 one are rejected
    assert [e.nodes[0].split(" ")[1] for e in trace.applied] == ["GATHER_ND", "GATHER"]
    assert _names(model).count("GATHER") == 2
    assert_fixed(raw, model, trace)


@pytest.mark.parametrize("rows, box", [
    ([[0, 1], [0, 2]], ([0, 1], [1, 2], [1, 1])),
    ([[0], [2], [4]], ([0], [3], [2])),
    ([[3]], ([3], [1], [1])),
    ([[0, 0], [0, 1], [1, 0], [1, 1]], ([0, 0], [2, 2], [1, 1])),
    ([[0, 0], [1, 0], [0, 1], [1, 1]], None),  # column-major order
    ([[0, 0], [1, 1]], None),  # a diagonal
    ([[2], [0]], None),  # descending
    ([[0], [1], [3]], None),  # uneven steps
    ([[1], [1]], None),  # repeated
])
def test_index_box(rows, box):
    assert index_box(np.array(rows)) == box


def test_split_becomes_slices_for_opengl(models):
    raw, model, trace = fixed(models, "sub_split", backend="gl")
    assert "SPLIT" not in _names(model) and "SPLIT_V" not in _names(model)
    assert _names(model).count("SLICE") == 4
    assert_fixed(raw, model, trace, backend="gl")


def test_split_is_left_alone_on_opencl(models):
    _, model, trace = fixed(models, "sub_split")
    assert not trace.applied and "SPLIT" in _names(model)


def test_broadcast_to_disappears_into_the_add_that_reads_it(models):
    raw, model, trace = fixed(models, "sub_broadcast_add")
    assert _names(model) == ["TANH", "TANH", "RESHAPE", "ADD"]
    add = model.graphs[0].ops[-1]
    assert sorted(t.shape for t in add.inputs) == [(1, 8, 8, 1), (1, 8, 8, 4)]
    assert_fixed(raw, model, trace)


def test_broadcast_to_becomes_tile_for_a_concatenation(models):
    raw, model, trace = fixed(models, "sub_broadcast_concat")
    assert _names(model) == ["TANH", "RESHAPE", "TILE", "TANH", "CONCATENATION"]
    tile = model.graphs[0].ops[2]
    assert tile.input(1).data().tolist() == [1, 1, 8, 1]  # [1, 8, 1, 4] -> [1, 8, 8, 4]
    assert_fixed(raw, model, trace)


def test_fixing_again_changes_nothing(models):
    _, model, _ = fixed(models, "sub_gather", backend="gl")
    again = ir.from_bytes(ir.to_bytes(model))
    trace = apply(again, rewrites.select(["substitute"]), RewriteContext(registry.get("gpu-current"),
                                                                         Options(backend="gl")))
    assert not trace.applied


def test_substitute_names_the_family_on_the_command_line(models, tmp_path):
    names = [r.name for r in rewrites.select(["substitute"])]
    assert names and all(n.startswith("substitute-") for n in names)
    assert not any(r.name.startswith("substitute-") for r in rewrites.select(skip=["substitute"]))
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path("sub_mirror_symmetric"), "-o", str(out), "--rewrite", "substitute",
                  "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [e["rewrite"] for e in doc["applied"]] == ["substitute-mirror-pad"]
    assert doc["after"]["fully_delegated"] and not doc["before"]["fully_delegated"]
    assert doc["verification"]["ok"] and doc["verification"]["tolerance"] == "exact"
    assert "MIRROR_PAD" not in _names(ir.load(str(out)))


def test_gather_nd_at_runtime_positions_becomes_gather(models):
    """GATHER_ND with runtime one-coordinate indices (litert-torch's RoPE lookups) is GATHER along
    axis 0 of the flattened indices, which LiteRT's GPU accelerator takes; in-range positions give
    the same rows (the seeded feeds draw them below the table's 16 rows)."""
    raw, model, trace = fixed(models, "sub_gather_nd_positions", profile="litert-mldrift")
    assert "GATHER_ND" not in _names(model) and "GATHER" in _names(model)
    assert trace.safeties() == {"exact"}
    assert_fixed(raw, model, trace, profile="litert-mldrift")


def fp16_embedding() -> bytes:
    """ids [3] -> the rows of an fp16 table [16, 8] behind DEQUANTIZE (EMBEDDING_LOOKUP), plus x."""
    from gpucompat.ir import dtypes
    from gpucompat.ir.build import Sketch

    s = Sketch()
    ids, x = s.input("ids", (3,), dtypes.INT32), s.input("x", (3, 8))
    table = s.const("table", np.random.default_rng(5).standard_normal((16, 8)).astype(np.float16))
    rows = s.op("EMBEDDING_LOOKUP", [ids, s.op("DEQUANTIZE", [table], (16, 8))], (3, 8))
    s.output(s.op("ADD", [rows, x], (3, 8)))
    return s.to_bytes()


def test_an_fp16_embedding_lookup_becomes_gather(tmp_path):
    """LiteRT's accelerator reads an EMBEDDING_LOOKUP table as quantized and refuses fp16 weights
    behind DEQUANTIZE; GATHER along axis 0 picks the same rows and is taken."""
    raw = fp16_embedding()
    model = ir.from_bytes(raw)
    context = RewriteContext(registry.get("litert-mldrift"), Options())
    trace = apply(model, rewrites.select(["substitute-embedding-lookup"]), context)
    assert _names(model) == ["DEQUANTIZE", "GATHER", "ADD"] and trace.safeties() == {"exact"}
    v = verify(raw, ir.to_bytes(model), trace.safeties())
    assert v.ok and all(o.max_abs_diff == 0 for o in v.outputs), v
    path, out = tmp_path / "embedding.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(raw)
    r = gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and "substitute-embedding-lookup" in [e["rewrite"] for e in doc["applied"]]
    assert not doc["before"]["fully_delegated"] and doc["after"]["fully_delegated"]


def test_relu_0_to_1_becomes_relu_and_minimum(tmp_path):
    from irbuild import IRModel, conv_options

    m = IRModel()
    x = m.input("x", [1, 4, 4, 4])
    w, b = m.const("w", np.full((4, 1, 1, 4), 0.7, np.float32)), m.const("b", np.full(4, -0.5, np.float32))
    conv = m.op("CONV_2D", [x, w, b], [1, 4, 4, 4], options=conv_options())
    m.output(m.op("TANH", [m.op("RELU_0_TO_1", [conv], [1, 4, 4, 4])], [1, 4, 4, 4]))
    raw = m.bytes()
    model = ir.from_bytes(raw)
    context = RewriteContext(registry.get("litert-mldrift"), Options())
    trace = apply(model, rewrites.select(["substitute"]), context)
    assert _names(model) == ["CONV_2D", "RELU", "MINIMUM", "TANH"]
    assert [(e.rewrite, e.safety) for e in trace.applied] == [("substitute-relu-0-to-1", "exact")]
    assert_fixed(raw, model, trace, "litert-mldrift")
    # gpu-current takes RELU_0_TO_1 itself: nothing to substitute
    untouched = ir.from_bytes(raw)
    assert not apply(untouched, rewrites.select(["substitute"]), RewriteContext(registry.get("gpu-current"),
                                                                               Options())).applied


def test_a_transpose_conv_with_a_fused_relu_becomes_version_3_and_a_relu():
    from irbuild import IRModel

    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    weights = (np.arange(4 * 3 * 3 * 8, dtype=np.float32).reshape(4, 3, 3, 8) % 7 - 3) / 10
    up = m.op("TRANSPOSE_CONV", [m.const("shape", np.array([1, 8, 8, 4], np.int32)), m.const("w", weights), x,
                                 m.const("b", np.array([0.5, -0.5, 0.0, 1.0], np.float32))], [1, 8, 8, 4],
              options=options("TransposeConv", padding="SAME", strideW=2, strideH=2, activation="RELU"), version=4)
    m.output(up)
    raw = m.bytes()
    model = ir.from_bytes(raw)
    trace = apply(model, rewrites.select(["substitute"]), RewriteContext(registry.get("litert-mldrift"), Options()))
    assert _names(model) == ["TRANSPOSE_CONV", "RELU"]
    conv = model.graphs[0].ops[0]
    assert conv.code.version == 3 and conv.options.fusedActivationFunction == 0
    assert_fixed(raw, model, trace, "litert-mldrift")
