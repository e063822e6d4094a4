"""What LiteRT's GPU accelerator refuses in transformer graphs: check names it under
litert-mldrift with the rewrite that removes it, and fix removes it with verified outputs."""

import json

import pytest

from cli import gpucompat
from gpucompat import ir
from vulkan import every_backend_ran


@pytest.mark.parametrize("name, op, words, rewrite", [
    ("xformer_constant_lhs_matmul", "BATCH_MATMUL", "left operand", "substitute-batch-matmul"),
    ("xformer_constant_lhs_matmul_adjoint", "BATCH_MATMUL", "left operand", "substitute-batch-matmul"),
    ("xformer_weight_only_dense", "DEQUANTIZE", "int8 weights of a FULLY_CONNECTED", "fold-quantized-weights"),
])
def test_check_names_the_failure_and_fix_removes_it(models, tmp_path, name, op, words, rewrite):
    path = models.path(name)
    r = gpucompat("check", path, "--profile", "litert-mldrift")
    assert words in r.stdout and rewrite in r.stdout
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and [e["rewrite"] for e in doc["applied"]] == [rewrite]
    assert doc["before"]["ops_gpu"] == 0 and doc["after"]["fully_delegated"]
    assert doc["verification"]["ok"]
    assert op not in {o.name for o in ir.load(str(out)).graphs[0].ops}
    every_backend_ran(doc["verification"])



def test_rank_5_attention_tensors_become_rank_4_with_identical_outputs(models, tmp_path):
    path = models.path("xformer_rank5_qkv")
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and [e["rewrite"] for e in doc["applied"]] == ["drop-unit-axis"]
    assert not doc["before"]["fully_delegated"] and doc["after"]["fully_delegated"]
    ref = doc["verification"]["backends"][0]
    assert ref["tolerance"] == "exact" and ref["ok"] and doc["verification"]["ok"]
    assert max(t.rank for t in ir.load(str(out)).graphs[0].tensors) == 4


def test_a_rank_5_tensor_read_by_another_op_is_refused_with_the_reader(models):
    from gpucompat.rewrites.drop_unit_axis import DropUnitAxis
    from models_fix import rewritten

    model = ir.from_bytes(models.bytes("xformer_rank5_qkv"))
    g = model.graphs[0]
    unpack = next(op for op in g.ops if op.name == "UNPACK")
    g.outputs.append(unpack.input(0))  # the rank-5 transposed tensor becomes a model output too
    _, trace = rewritten(ir.to_bytes(model), DropUnitAxis(), profile="litert-mldrift")
    assert not trace.applied
    assert any("is a model output" in e.reason for e in trace.not_applied if e.rewrite == "drop-unit-axis")


def test_grouped_query_heads_repeated_through_rank_5_become_rank_4(models, tmp_path):
    """litert-torch repeats each key/value head through RESHAPE [1, T, G, 1, D] -> BROADCAST_TO
    [1, T, G, R, D]: the leading unit axis is dropped (the broadcast one is widened, so it is not
    the one), then the rank-4 BROADCAST_TO becomes TILE, which the accelerator takes."""
    path = models.path("xformer_gqa_repeat")
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0, r.stderr
    assert {"drop-unit-axis", "substitute-broadcast-to"} <= {e["rewrite"] for e in doc["applied"]}
    assert not doc["before"]["fully_delegated"] and doc["after"]["fully_delegated"]
    assert doc["verification"]["backends"][0]["tolerance"] == "exact" and doc["verification"]["ok"]
    graph = ir.load(str(out)).graphs[0]
    assert max(t.rank for t in graph.tensors) == 4 and "BROADCAST_TO" not in {o.name for o in graph.ops}


def int8_dense_over_rows() -> bytes:
    """A dynamic-range dense layer as litert-torch writes a prefill of 32: float input [1, 32, 16],
    int8 weights [8, 16] (per-tensor scale), keep_num_dims false, output [32, 8]."""
    import numpy as np
    from ai_edge_litert import schema_py_generated as fb

    from gpucompat.ir.build import Sketch

    s = Sketch()
    x = s.input("x", (1, 32, 16))
    w = s.const("w", np.random.default_rng(6).integers(-127, 128, (8, 16)).astype(np.int8), (0.01, 0))
    s.output(s.op("FULLY_CONNECTED", [x, w, None], (32, 8), options=fb.FullyConnectedOptionsT(), version=3))
    return s.to_bytes()


def test_an_int8_dense_layer_over_more_than_16_rows_reads_them_flat(tmp_path):
    """LiteRT's accelerator cannot build an int8-weight FULLY_CONNECTED flattening [1, 32, 16] into
    32 rows (the whole compile fails); on the input RESHAPEd to [32, 16] it builds and is right."""
    path, out = tmp_path / "rows.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(int8_dense_over_rows())
    r = gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and [e["rewrite"] for e in doc["applied"]] == ["flatten-fc-rows"], r.stderr
    assert doc["before"]["delegation_fails"] or doc["before"]["ops_gpu"] == 0
    assert doc["after"]["fully_delegated"] and doc["verification"]["backends"][0]["tolerance"] == "exact"
    assert doc["verification"]["ok"]
    graph = ir.load(str(out)).graphs[0]
    assert [o.name for o in graph.ops] == ["RESHAPE", "FULLY_CONNECTED"] and graph.ops[1].inputs[0].shape == (32, 16)


def broadcast_matmul() -> bytes:
    """Decode attention with one key/value head: queries [4, 1, 64] times the shared keys [64, 64]
    (BATCH_MATMUL broadcasting the second operand over the 4 heads)."""
    from ai_edge_litert import schema_py_generated as fb

    from gpucompat.ir.build import Sketch

    s = Sketch()
    q, k = s.input("q", (4, 1, 64)), s.input("k", (64, 64))
    s.output(s.op("BATCH_MATMUL", [q, k], (4, 1, 64), options=fb.BatchMatMulOptionsT()))
    return s.to_bytes()


def test_a_batch_broadcast_matmul_reads_its_operand_tiled(tmp_path):
    """LiteRT's accelerator computes BATCH_MATMUL's batch broadcast wrongly (GPU005); with the
    shared operand TILEd to the batch it is right, and the CPU's outputs are the same bytes."""
    path, out = tmp_path / "bmm.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(broadcast_matmul())
    check = json.loads(gpucompat("check", str(path), "--profile", "litert-mldrift", "--format", "json").stdout)
    assert any(f["code"] == "GPU005" for f in check["models"][0]["findings"])
    r = gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift", "--format", "json",
                  "--verify-on", "litert-gpu")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and [e["rewrite"] for e in doc["applied"]] == ["tile-batch-matmul"], r.stderr
    assert doc["verification"]["backends"][0]["tolerance"] == "exact" and doc["verification"]["ok"]
    assert [o.name for o in ir.load(str(out)).graphs[0].ops] == ["RESHAPE", "TILE", "BATCH_MATMUL"]
    every_backend_ran(doc["verification"])
