"""When the original model itself fails on the proof's inputs (a SLICE whose begin, an input,
falls outside the tensor: the reference interpreter refuses to run it), `fix` says so and blames
no rewrite, and the runtime's messages stay apart ("Invalid begin. Node number 2"). The model
comes from TensorFlow's converter: a conv on an RGB image (which rgb-to-rgba rewrites) sliced
from a runtime row."""

import json

import numpy as np
import pytest

from cli import gpucompat
from modelgen import convert_fn, tf


@pytest.fixture(scope="module")
def sliced_at_runtime(tmp_path_factory) -> str:
    t = tf()
    w = (np.random.default_rng(0).standard_normal([3, 3, 3, 4]) * 0.3).astype(np.float32)

    def fn(image, begin):
        return t.slice(t.nn.conv2d(image, w, 1, "SAME"), t.concat([[0], begin, [0, 0]], 0), [1, 2, 8, 4])

    path = tmp_path_factory.mktemp("sliced") / "sliced.tflite"
    path.write_bytes(convert_fn(fn, [([1, 8, 8, 3], t.float32), ([1], t.int32)]))
    return str(path)


def test_fix_blames_no_rewrite_for_what_the_original_does(sliced_at_runtime, tmp_path):
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", sliced_at_runtime, "-o", str(out), "--unsafe-fixes", "--rewrite", "rgb-to-rgba",
                  "--format", "json")
    doc = json.loads(r.stdout)
    assert [a["rewrite"] for a in doc["applied"]] == ["rgb-to-rgba"]
    proof = doc["verification"]
    assert proof["failing_rewrites"] == [] and not proof["ok"] and not out.exists()
    reference = proof["backends"][0]
    assert reference["original_failed"] and "the original model fails on these inputs" in reference["error"]
    assert "Invalid begin. Node number" in reference["error"]
    text = gpucompat("fix", sliced_at_runtime, "-o", str(out), "--unsafe-fixes", "--rewrite", "rgb-to-rgba")
    assert "failing rewrite" not in text.stdout and "the original model itself fails" in text.stdout
