"""What LiteRT's GPU accelerator refuses in transformer graphs: check names it under
litert-mldrift with the rewrite that removes it, and fix removes it with verified outputs."""

import json

import pytest

from cli import gpucompat
from gpucompat import ir


@pytest.mark.parametrize("name, op, words, rewrite", [
    ("xformer_constant_lhs_matmul", "BATCH_MATMUL", "left operand", "substitute-batch-matmul"),
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
    assert doc["verification"]["ok"] and all(b["not_run"] is None for b in doc["verification"]["backends"])
    assert op not in {o.name for o in ir.load(str(out)).graphs[0].ops}

