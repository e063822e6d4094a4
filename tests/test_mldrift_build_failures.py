"""Forms LiteRT's GPU accelerator takes at partitioning and then cannot build (the whole compile
fails), as litert-mldrift predicts them; each was measured on the real accelerator (the zoo's last
disagreements, docs/zoo.md) beside its neighbours that build. Models written with tests/irbuild.py."""

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

import gpucompat
from irbuild import IRModel


def fully_connected(x_shape, out_shape, keep: bool, weights: str = "int8", blockwise: bool = False) -> IRModel:
    """FULLY_CONNECTED with [128, features] weights: int8 of a float input (dynamic-range quantized),
    "full-int8" (int8 input, weights and output, as a full-int8 model holds it), or float; int8
    weights optionally carry blockwise quantization details (as INT4 exports do)."""
    m = IRModel()
    full_int8 = weights == "full-int8"
    x = m.input("x", x_shape, "INT8", quantization=(0.05, 3)) if full_int8 else m.input("x", x_shape)
    int8 = weights in ("int8", "full-int8")
    features = x_shape[-1]
    values = (np.arange(128 * features).reshape(128, features) % 7 - 3).astype(np.int8 if int8 else np.float32)
    w = m.const("w", values, quantization=(0.02, 0) if int8 else None)
    if blockwise:
        q = m.graph.rec.tensors[w].quantization
        q.details, q.detailsType = fb.BlockwiseQuantizationT(), fb.QuantizationDetails.BlockwiseQuantization
        q.details.blockSize = 32
    options = fb.FullyConnectedOptionsT()
    options.keepNumDims = keep
    out = dict(dtype="INT8", quantization=(0.25, -2)) if full_int8 else {}
    m.output(m.op("FULLY_CONNECTED", [x, w, -1], out_shape, options=options, **out))
    return m


def summary(m: IRModel, tmp_path) -> dict:
    return gpucompat.check(m.save(tmp_path / "m.tflite"), profile="litert-mldrift")["summary"]


FLATTENING = [  # (input, output, keep_num_dims, weights, fails to build): each measured on 2.3.0's accelerator
    ([1, 32, 64], [32, 128], False, "int8", True),       # flattens 32 rows of batch 1: fails
    ([1, 16, 64], [16, 128], False, "int8", False),      # 16 rows: built
    ([1, 17, 64], [17, 128], False, "int8", True),       # 17 rows: fails
    ([1, 17, 8], [17, 128], False, "int8", True),        # whatever the features
    ([2, 40, 64], [80, 128], False, "int8", False),      # batch 2: built
    ([1, 32, 64], [1, 32, 128], True, "int8", False),    # keeps its rank: built
    ([32, 64], [32, 128], True, "int8", False),          # rank 2: built
    ([1, 32, 64], [32, 128], False, "float", False),     # float weights: built
    ([1, 4, 8, 64], [32, 128], False, "int8", True),     # flattens [1, H, W, C], H * W = 32: fails
    ([1, 4, 4, 64], [16, 128], False, "int8", False),    # H * W = 16: built
    ([1, 2, 9, 64], [18, 128], False, "int8", True),     # H * W = 18: fails
    ([1, 1, 17, 64], [17, 128], False, "int8", True),    # H = 1, W = 17: fails
    ([2, 1, 16, 64], [32, 128], False, "int8", False),   # batch 2: built
    ([1, 4, 8, 64], [1, 4, 8, 128], True, "int8", False),  # keeps its rank: built
    ([1, 16, 64], [16, 128], False, "full-int8", False),    # full-int8 (int8 input), 16 rows: built
    ([1, 17, 64], [17, 128], False, "full-int8", True),     # 17 rows: fails
    ([1, 17, 64], [1, 17, 128], True, "full-int8", False),  # keeps its rank: built
    ([1, 4, 4, 64], [16, 128], False, "full-int8", False),  # H * W = 16: built
    ([1, 3, 6, 64], [18, 128], False, "full-int8", True),   # H * W = 18: fails
    ([2, 40, 64], [80, 128], False, "full-int8", False),    # batch 2: built
    ([2, 4, 8, 64], [64, 128], False, "full-int8", False),  # batch 2: built
]


@pytest.mark.parametrize("x_shape, out_shape, keep, weights, fails", FLATTENING)
def test_an_int8_weight_fully_connected_flattening_fails_to_build(x_shape, out_shape, keep, weights, fails,
                                                                  tmp_path):
    rec = gpucompat.check(fully_connected(x_shape, out_shape, keep, weights).save(tmp_path / "m.tflite"),
                          profile="litert-mldrift")
    s = rec["summary"]
    assert s["delegation_fails"] is fails and s["ops_gpu"] == (0 if fails else 1)
    if fails:  # the finding says what fails to build, and of which input
        kind = "int8 (full-int8)" if weights == "full-int8" else "float"
        assert any(f["code"] == "GPU002" and f"{kind} input {x_shape} into more than 16 rows fails to build"
                   in f["message"] for f in rec["findings"]), rec["findings"]


def test_the_accelerator_builds_the_flattening_forms_as_predicted(tmp_path):
    """The same forms compiled on LiteRT's real accelerator: `confirm` finds no disagreement."""
    from cli import gpucompat as run_cli
    from vulkan import gate

    for i, case in enumerate(FLATTENING):
        fully_connected(*case[:4]).save(tmp_path / f"fc{i}.tflite")
    r = run_cli("confirm", str(tmp_path))
    gate(r)
    assert r.returncode == 0, r.stdout + r.stderr


def test_blockwise_quantized_weights_crash_the_accelerator(tmp_path):
    s = summary(fully_connected([32, 64], [32, 128], True, blockwise=True), tmp_path)
    assert s["delegation_fails"] and s["ops_gpu"] == 0
    rec = gpucompat.check(str(tmp_path / "m.tflite"), profile="litert-mldrift")
    assert any(f["code"] == "GPU002" and "blockwise quantized" in f["message"] for f in rec["findings"])
