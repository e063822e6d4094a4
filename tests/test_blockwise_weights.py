"""INT4 weights with per-block scales (litert-torch's dynamic_int4_block32, ai-edge-quantizer's
blockwise recipes): the weights name their scales tensor by index, so every command that writes or
cuts the graph renumbers that reference (it used to refuse such models); the executor reads the
weights as the CPU does (two a byte, low nibble first, times the block's scale); verify's float
reference dequantizes them the same way. The model is written with the IR builder: a dense layer
[1, 4, 64] -> [1, 4, 16] of INT4 weights in blocks of 32, then TANH."""

import json

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from cli import gpucompat
from gpucompat import ir
from gpucompat.ir import dtypes
from gpucompat.ir.build import Sketch, constant
from gpucompat.ir.submodel import cut
from gpucompat.opencl.executor import blockwise_values
from gpucompat.verification.interpreter import reference_interpreter, run_reference

UNITS, FEATURES, BLOCK = 16, 64, 32


def int4_dense(zero_block: bool = False) -> tuple[bytes, np.ndarray]:
    """The model and the float weights its INT4 values and fp16 block scales stand for;
    `zero_block`: the first block of the first row has scale 0 (a row of zeros there), which the
    CPU's builtin kernels take and XNNPACK refuses."""
    rng = np.random.default_rng(2)
    q = rng.integers(-8, 8, (UNITS, FEATURES)).astype(np.int8)
    scales = (rng.uniform(0.01, 0.05, (UNITS, FEATURES // BLOCK))).astype(np.float16)
    if zero_block:
        scales[0, 0] = 0
    packed = ((q[:, 0::2] & 0x0F) | ((q[:, 1::2] & 0x0F) << 4)).astype(np.uint8)
    s = Sketch()
    x = s.input("x", (1, 4, FEATURES))
    scale_tensor = constant(s.graph, "w_scales", scales)
    w = constant(s.graph, "w", packed.reshape(UNITS, FEATURES // 2))
    w.fb.type, w.fb.shape = dtypes.INT4, np.asarray([UNITS, FEATURES], np.int32)
    details = fb.BlockwiseQuantizationT()
    details.scales, details.zeroPoints, details.blockSize = s.graph.tensors.index(scale_tensor), -1, BLOCK
    w.fb.quantization = fb.QuantizationParametersT()
    w.fb.quantization.detailsType, w.fb.quantization.details = fb.QuantizationDetails.BlockwiseQuantization, details
    options = fb.FullyConnectedOptionsT()
    options.keepNumDims = True
    dense = s.op("FULLY_CONNECTED", [x, w, None], (1, 4, UNITS), options=options, version=5)
    s.output(s.op("TANH", [dense], (1, 4, UNITS)))
    weights = q.astype(np.float32) * np.repeat(scales.astype(np.float32), BLOCK, axis=1)
    return s.to_bytes(), weights


def test_the_weights_are_read_as_the_cpu_reads_them():
    data, weights = int4_dense()
    model = ir.from_bytes(data)
    w = model.graphs[0].ops[0].inputs[1]
    assert w.is_blockwise_quantized and dict(model.quantization_targets(w))["scales"].name == "w_scales"
    np.testing.assert_array_equal(blockwise_values(w), weights)
    x = np.random.default_rng(3).standard_normal((1, 4, FEATURES)).astype(np.float32)
    got = run_reference(reference_interpreter(data, "int4 dense"), [x])[0]
    np.testing.assert_allclose(got, np.tanh(x @ weights.T), atol=0.05)  # the CPU quantizes x on the fly


def test_a_cut_or_rewritten_model_names_its_scales_anew():
    """The dense layer cut alone, and the whole model written after a tensor is added in front,
    both run on the CPU interpreter with the same outputs as the stored model."""
    data, _ = int4_dense()
    model = ir.from_bytes(data)
    dense = model.graphs[0].ops[0]
    x = np.random.default_rng(4).standard_normal((1, 4, FEATURES)).astype(np.float32)
    want = run_reference(reference_interpreter(data, "stored"), [x])
    alone = cut([dense], [dense.inputs[0]], dense.outputs)
    dense_alone = run_reference(reference_interpreter(alone, "cut"), [x])[0]
    np.testing.assert_allclose(np.tanh(dense_alone), want[0], rtol=1e-6)
    graph = model.graphs[0]
    graph.tensors.insert(0, graph.tensors.pop())  # the output tensor first: every index moves
    rewritten = ir.to_bytes(model)
    np.testing.assert_array_equal(run_reference(reference_interpreter(rewritten, "rewritten"), [x])[0], want[0])


@pytest.mark.opencl
def test_verify_runs_a_blockwise_model(tmp_path):
    data, _ = int4_dense()
    path = tmp_path / "int4.tflite"
    path.write_bytes(data)
    r = gpucompat("verify", str(path), "--runs", "2", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["passed"] and "weights dequantized" in doc["reference"]["model"]


def test_a_graph_xnnpack_refuses_runs_on_the_builtin_kernels():
    """A block scale of 0 (legal: the builtin kernels take it; a decode signature's weights, which
    the CPU never hands XNNPACK, made the main subgraph by verify) is refused by XNNPACK: the
    reference runs on the builtin kernels instead of failing."""
    data, weights = int4_dense(zero_block=True)
    x = np.random.default_rng(5).standard_normal((1, 4, FEATURES)).astype(np.float32)
    got = run_reference(reference_interpreter(data, "zero block"), [x])[0]
    np.testing.assert_allclose(got, np.tanh(x @ weights.T), atol=0.05)
