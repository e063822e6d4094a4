"""Where an operand comes from decides where LiteRT's GPU accelerator puts an op: a constant (a
float32 one, or fp16 weights behind their DEQUANTIZE, which the delegate reads as the constant), a
runtime tensor, or a value computed in the graph (from SHAPE: runtime to the delegate). Each form
below was measured on LiteRT 2.3.0's accelerator (/work/shared/oracle/delegation.py) beside its
twin, and `check --profile litert-mldrift` must place both as the accelerator does, with its
message. Models written op by op with the IR builder, as a converter writes them."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat.calibrate.grid import options_of
from gpucompat.ir import dtypes
from gpucompat.ir.build import Sketch
from vulkan import without_device

W = np.linspace(-1, 1, 96, dtype=np.float32)


def _values(*shape) -> np.ndarray:
    return np.resize(W, shape).astype(np.float32)


def _fp16(s: Sketch, name: str, value: np.ndarray):
    """fp16 weights as the converter writes them: a FLOAT16 constant behind its DEQUANTIZE."""
    return s.op("DEQUANTIZE", [s.const(name, value.astype(np.float16))], value.shape)


def _int8(s: Sketch, name: str, value: np.ndarray, per_channel: bool = False):
    """Weight-only int8 weights: an int8 constant with its scale (one per index of the first axis
    with `per_channel`) behind its DEQUANTIZE."""
    scale = np.abs(value).max(axis=tuple(range(1, value.ndim)) if per_channel else None) / 127
    q = np.round(value / (scale.reshape(-1, *[1] * (value.ndim - 1)) if per_channel else scale)).astype(np.int8)
    return s.op("DEQUANTIZE", [s.const(name, q, (scale.tolist() if per_channel else float(scale), 0))], value.shape)


def _source(s: Sketch, source: str, shape):
    """The op's input `x`: a runtime tensor, a float32 constant or fp16 values behind DEQUANTIZE."""
    if source == "runtime":
        return s.input("x", shape)
    return s.const("x", _values(*shape)) if source == "float32" else _fp16(s, "x", _values(*shape))


def _add(s: Sketch, a, b, shape):
    return s.op("ADD", [a, b], shape, options=options_of("Add"))


def dequantize_runtime_fp16(producer: str) -> Sketch:
    """DEQUANTIZE of a FLOAT16 runtime tensor (a model input, or the output of an fp16 ADD or of a
    CAST to fp16), added to a float input."""
    s = Sketch()
    y = s.input("y", (1, 8))
    if producer == "input":
        x = s.input("x", (1, 8), dtypes.FLOAT16)
    elif producer == "add":
        x16 = s.input("x", (1, 8), dtypes.FLOAT16)
        x = s.op("ADD", [x16, x16], (1, 8), dtypes.FLOAT16, options=options_of("Add"))
    else:
        x = s.op("CAST", [s.input("x", (1, 8))], (1, 8), dtypes.FLOAT16)
    s.output(_add(s, s.op("DEQUANTIZE", [x], (1, 8)), y, (1, 8)))
    return s


def dequantize_runtime_int8(dtype: int = dtypes.INT8, scale=0.1) -> Sketch:
    """DEQUANTIZE of a runtime int8 (or uint8) input, the float output of a full-int8 model; a
    sequence `scale` quantizes it per channel."""
    s = Sketch()
    x = s.input("x", (4, 8), dtype, quantization=(scale, 128 if dtype == dtypes.UINT8 else 0))
    s.output(s.op("DEQUANTIZE", [x], (4, 8)))
    return s


def dequantize_constant_fp16() -> Sketch:
    """fp16 weights behind DEQUANTIZE added to a float input (an fp16-weight model)."""
    s = Sketch()
    s.output(_add(s, s.input("y", (1, 8)), _fp16(s, "w", _values(1, 8)), (1, 8)))
    return s


def full_int8() -> Sketch:
    """QUANTIZE, an int8 ADD and DEQUANTIZE of its runtime int8 output."""
    s = Sketch()
    q = s.op("QUANTIZE", [s.input("x", (1, 8))], (1, 8), dtypes.INT8, quantization=(0.1, 0))
    a = s.op("ADD", [q, s.const("c", np.ones((1, 8), np.int8), (0.1, 0))], (1, 8), dtypes.INT8,
             options=options_of("Add"), quantization=(0.2, 0))
    s.output(s.op("DEQUANTIZE", [a], (1, 8)))
    return s


CONV = options_of("Conv2D", padding=1, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1)


def conv(source: str, weights: str = "constant") -> Sketch:
    """CONV_2D whose input is a runtime tensor, a float32 constant or fp16 weights behind
    DEQUANTIZE, with constant or runtime weights; its output added to a runtime input."""
    s = Sketch()
    y = s.input("y", (1, 4, 4, 2))
    x = _source(s, source, (1, 4, 4, 3))
    w = s.input("w", (2, 1, 1, 3)) if weights == "runtime" else s.const("w", _values(2, 1, 1, 3))
    c = s.op("CONV_2D", [x, w, s.const("b", _values(2))], (1, 4, 4, 2), options=CONV)
    s.output(_add(s, y, c, (1, 4, 4, 2)))
    return s


def mean(source: str) -> Sketch:
    """MEAN over H and W of a runtime tensor, a float32 constant or fp16 weights behind DEQUANTIZE."""
    s = Sketch()
    y = s.input("y", (1, 1, 1, 3))
    x = _source(s, source, (1, 4, 4, 3))
    m = s.op("MEAN", [x, s.const("axes", np.array([1, 2], np.int32))], (1, 1, 1, 3),
             options=options_of("Reducer", keepDims=True))
    s.output(_add(s, y, m, (1, 1, 1, 3)))
    return s


def constant_add(second: str) -> Sketch:
    """ADD of two constants (fp16 weights behind DEQUANTIZE and a float32 or an fp16 one), beside
    a runtime ADD so the model has an input."""
    s = Sketch()
    y = s.input("y", (1, 8))
    b = _fp16(s, "b", _values(1, 8)[:, ::-1].copy()) if second == "fp16" else s.const("b", _values(1, 8))
    s.output(_add(s, _fp16(s, "a", _values(1, 8)), b, (1, 8)), _add(s, y, y, (1, 8)))
    return s


def fully_connected(source: str, weights: str = "runtime") -> Sketch:
    """FULLY_CONNECTED of a runtime input, a float32 constant or fp16 values behind DEQUANTIZE."""
    s = Sketch()
    x = _source(s, source, (1, 8))
    w = s.input("w", (4, 8)) if weights == "runtime" else s.const("w", _values(4, 8))
    s.output(s.op("FULLY_CONNECTED", [x, w, None], (1, 4), options=options_of("FullyConnected")))
    return s


def resize(size: str, op: str = "RESIZE_BILINEAR") -> Sketch:
    """RESIZE to twice the input's size: a constant size, or one computed in the graph as TF's
    converter writes tf.image.resize(x, tf.shape(x)[1:3] * 2) (SHAPE, STRIDED_SLICE, MUL)."""
    s = Sketch()
    x = s.input("x", (1, 4, 4, 3))
    if size == "constant":
        hw = s.const("size", np.array([8, 8], np.int32))
    else:
        shape = s.op("SHAPE", [x], (4,), dtypes.INT32, options=options_of("Shape", outType=dtypes.INT32))
        ints = [s.const(n, np.array([v], np.int32)) for n, v in (("begin", 1), ("end", 3), ("step", 1))]
        sliced = s.op("STRIDED_SLICE", [shape, *ints], (2,), dtypes.INT32, options=options_of("StridedSlice"))
        hw = s.op("MUL", [sliced, s.const("two", np.array([2, 2], np.int32))], (2,), dtypes.INT32,
                  options=options_of("Mul"))
    name = "ResizeBilinear" if op == "RESIZE_BILINEAR" else "ResizeNearestNeighbor"
    s.output(s.op(op, [x, hw], (1, 8, 8, 3), options=options_of(name)))
    return s


def embedding_lookup(table: str, ids: str = "runtime") -> Sketch:
    """EMBEDDING_LOOKUP of a [10, 4] table: fp16 weights behind DEQUANTIZE, float32, int8 with its
    scale, or a runtime tensor; runtime or constant ids."""
    s = Sketch()
    i = s.input("ids", (3,), dtypes.INT32) if ids == "runtime" else s.const("ids", np.array([0, 2, 3], np.int32))
    t = {"fp16": lambda: _fp16(s, "table", _values(10, 4)), "float32": lambda: s.const("table", _values(10, 4)),
         "int8": lambda: s.const("table", np.arange(40, dtype=np.int8).reshape(10, 4), (0.1, 0)),
         "runtime": lambda: s.input("table", (10, 4))}[table]()
    out = s.op("EMBEDDING_LOOKUP", [i, t], (3, 4))
    s.output(out if ids == "runtime" else _add(s, out, s.input("y", (3, 4)), (3, 4)))
    return s


def gather(table: str, shape=(10, 8)) -> Sketch:
    """GATHER of 3 runtime ids along the first axis of a constant table: float32, fp16 weights
    behind DEQUANTIZE, weight-only int8, or a FLOAT16 constant read into a FLOAT16 output."""
    s = Sketch()
    ids = s.input("ids", (3,), dtypes.INT32)
    dtype = dtypes.FLOAT16 if table == "float16" else dtypes.FLOAT32
    t = {"float32": lambda: s.const("table", _values(*shape)), "fp16": lambda: _fp16(s, "table", _values(*shape)),
         "int8": lambda: _int8(s, "table", _values(*shape)),
         "float16": lambda: s.const("table", _values(*shape).astype(np.float16))}[table]()
    s.output(s.op("GATHER", [t, ids], (3, *shape[1:]), dtype, options=options_of("Gather", axis=0, batchDims=0)))
    return s


def batch_matmul(weights: str, shape=(8, 5)) -> Sketch:
    """BATCH_MATMUL of a runtime [4, 8] (batch 1 for rank-3 weights) by constant weights: fp16
    behind DEQUANTIZE, or int8 quantized per tensor or per channel behind DEQUANTIZE."""
    s = Sketch()
    x = s.input("x", (*shape[:-2], 4, 8))
    value = _values(*shape)
    w = _fp16(s, "w", value) if weights == "fp16" else _int8(s, "w", value, weights == "per_channel")
    s.output(s.op("BATCH_MATMUL", [x, w], (*shape[:-2], 4, shape[-1]), options=options_of("BatchMatMul")))
    return s


def add_int8(shape) -> Sketch:
    """A runtime input plus weight-only int8 values of the same shape."""
    s = Sketch()
    s.output(_add(s, s.input("y", shape), _int8(s, "w", _values(*shape)), shape))
    return s


def fully_connected_int8(units: int) -> Sketch:
    """FULLY_CONNECTED of a runtime [2, 8] by weight-only int8 weights [units, 8]."""
    s = Sketch()
    w = _int8(s, "w", _values(units, 8))
    s.output(s.op("FULLY_CONNECTED", [s.input("x", (2, 8)), w, None], (2, units), options=options_of("FullyConnected")))
    return s


def prelu(x_shape, alpha_shape, alpha: str = "float32", source: str = "runtime") -> Sketch:
    """PRELU of an input (runtime, or a float32 constant added to a runtime input) by an alpha:
    float32, fp16 behind DEQUANTIZE, or a runtime tensor; rank 0 is a scalar alpha."""
    s = Sketch()
    a = {"float32": lambda: s.const("alpha", _values(*alpha_shape)),
         "fp16": lambda: _fp16(s, "alpha", _values(*alpha_shape)),
         "runtime": lambda: s.input("alpha", alpha_shape)}[alpha]()
    out = s.op("PRELU", [_source(s, source, x_shape), a], x_shape)
    s.output(out if source == "runtime" else _add(s, out, s.input("y", x_shape), x_shape))
    return s


def constant_input(op: str, source: str) -> Sketch:
    """TILE (twice along the first axis) or CUMSUM (along the last) of a [3, 8] constant:
    float32, fp16 behind DEQUANTIZE or weight-only int8; added to a runtime input."""
    s = Sketch()
    x = _int8(s, "x", _values(3, 8)) if source == "int8" else _source(s, source, (3, 8))
    if op == "TILE":
        out = s.op("TILE", [x, s.const("multiples", np.array([2, 1], np.int32))], (6, 8))
    else:
        out = s.op("CUMSUM", [x, s.const("axis", np.array(1, np.int32))], (3, 8), options=options_of("Cumsum"))
    s.output(_add(s, out, s.input("y", out.shape), out.shape))
    return s


ZERO_RUNTIME_CONV = "Expected 1 or 2 input tensor(s), but node has 0 runtime inputs."
TWO_CONSTANT_AXES = "Expected 1 const input tensor(s), but node has 2 const input(s)."
FC_CONSTANT = "FullyConnected doesn't support constant input."
DENSIFY = "Dequantize for Densify is not supported"
COMPUTED_SIZE = "Expected 1 runtime input tensor(s), but node has 2 runtime input(s)."
ZERO_RUNTIME = "Expected 1 runtime input tensor(s), but node has 0 runtime input(s)."
LINEAR_ALPHA = "Linear alpha shape does not match the number of input channels."
HWC_ALPHA = "Expected a 3D tensor of shape HxWxC or a 4D tensor of shape 1xHxWxC but got [{}]"
CANNOT_READ = "Check failed: CanReadValue(node_input_index)"

# name: (model, op type, where the accelerator put it: gpu / cpu / fails (the whole compile), its message)
CASES = {
    "dequantize_fp16_input": (dequantize_runtime_fp16("input"), "DEQUANTIZE", "cpu", DENSIFY),
    "dequantize_fp16_add": (dequantize_runtime_fp16("add"), "DEQUANTIZE", "cpu", DENSIFY),
    "dequantize_fp16_cast": (dequantize_runtime_fp16("cast"), "DEQUANTIZE", "cpu", DENSIFY),
    "dequantize_int8_per_channel": (dequantize_runtime_int8(scale=[0.1, 0.2, 0.3, 0.4]), "DEQUANTIZE", "cpu",
                                    "Unsupported quantization scale size"),
    "dequantize_int8_input": (dequantize_runtime_int8(), "DEQUANTIZE", "gpu", None),
    "dequantize_uint8_input": (dequantize_runtime_int8(dtypes.UINT8), "DEQUANTIZE", "gpu", None),
    "dequantize_fp16_weights": (dequantize_constant_fp16(), "ADD", "gpu", None),
    "full_int8": (full_int8(), "DEQUANTIZE", "gpu", None),
    "conv_float32_constants": (conv("float32"), "CONV_2D", "cpu", ZERO_RUNTIME_CONV),
    "conv_fp16_constants": (conv("fp16"), "CONV_2D", "cpu", ZERO_RUNTIME_CONV),
    "conv_constant_input_runtime_weights": (conv("float32", "runtime"), "CONV_2D", "cpu",
                                            "input must be a runtime tensor"),
    "conv_runtime_input": (conv("runtime"), "CONV_2D", "gpu", None),
    "mean_float32_constant": (mean("float32"), "MEAN", "cpu", TWO_CONSTANT_AXES),
    "mean_fp16_constant": (mean("fp16"), "MEAN", "cpu", TWO_CONSTANT_AXES),
    "mean_runtime_input": (mean("runtime"), "MEAN", "gpu", None),
    "add_fp16_and_float32_constants": (constant_add("float32"), "ADD", "cpu",
                                       "add: constant inputs have different types: FLOAT16 vs FLOAT32"),
    "add_two_fp16_constants": (constant_add("fp16"), "ADD", "gpu", None),
    "fully_connected_constant_input": (fully_connected("float32"), "FULLY_CONNECTED", "cpu", FC_CONSTANT),
    "fully_connected_constants": (fully_connected("float32", "constant"), "FULLY_CONNECTED", "cpu", FC_CONSTANT),
    "fully_connected_fp16_input": (fully_connected("fp16"), "FULLY_CONNECTED", "cpu", FC_CONSTANT),
    "fully_connected_runtime_input": (fully_connected("runtime"), "FULLY_CONNECTED", "gpu", None),
    "resize_bilinear_computed_size": (resize("computed"), "RESIZE_BILINEAR", "cpu", COMPUTED_SIZE),
    "resize_nearest_computed_size": (resize("computed", "RESIZE_NEAREST_NEIGHBOR"), "RESIZE_NEAREST_NEIGHBOR",
                                     "cpu", COMPUTED_SIZE),
    "resize_bilinear_constant_size": (resize("constant"), "RESIZE_BILINEAR", "gpu", None),
    "embedding_fp16_table": (embedding_lookup("fp16"), "EMBEDDING_LOOKUP", "cpu",
                             "EMBEDDING_LOOKUP: Empty quantization params."),
    "embedding_float32_table": (embedding_lookup("float32"), "EMBEDDING_LOOKUP", "gpu", None),
    "embedding_int8_table": (embedding_lookup("int8"), "EMBEDDING_LOOKUP", "gpu", None),
    "embedding_runtime_table": (embedding_lookup("runtime"), "EMBEDDING_LOOKUP", "fails",
                                "the accelerator crashed while compiling the model"),
    "embedding_constant_ids": (embedding_lookup("float32", "constant"), "EMBEDDING_LOOKUP", "fails", CANNOT_READ),
    "gather_fp16_table": (gather("fp16"), "GATHER", "cpu", "Input / output dtype mismatch."),
    "gather_float32_table": (gather("float32"), "GATHER", "gpu", None),
    "gather_float16_table_float16_output": (gather("float16"), "GATHER", "gpu", None),
    "gather_int8_table": (gather("int8"), "DEQUANTIZE", "fails",
                          "Shape mismatch: {bhwc, {10, 1, 1, 8}} vs {bhwc, {1, 1, 10, 8}}"),
    "gather_int8_table_rank3": (gather("int8", (2, 10, 8)), "DEQUANTIZE", "fails",
                                "Shape mismatch: {bhwc, {2, 1, 10, 8}} vs {bhwc, {1, 2, 10, 8}}"),
    "gather_int8_table_first_axis_1": (gather("int8", (1, 10, 8)), "GATHER", "gpu", None),
    "gather_int8_table_rank4": (gather("int8", (2, 3, 10, 8)), "GATHER", "gpu", None),
    "batch_matmul_int8_weights": (batch_matmul("per_tensor"), "DEQUANTIZE", "fails",
                                  "Shape mismatch: {bhwc, {8, 1, 1, 5}} vs {bhwc, {1, 1, 8, 5}}"),
    "batch_matmul_int8_weights_per_channel": (batch_matmul("per_channel"), "DEQUANTIZE", "fails",
                                              "Shape mismatch: {bhwc, {8, 1, 1, 5}} vs {bhwc, {1, 1, 8, 5}}"),
    "batch_matmul_int8_weights_batch_1": (batch_matmul("per_tensor", (1, 8, 5)), "BATCH_MATMUL", "gpu", None),
    "batch_matmul_fp16_weights": (batch_matmul("fp16"), "BATCH_MATMUL", "gpu", None),
    "add_int8_constant": (add_int8((3, 1, 8)), "DEQUANTIZE", "fails",
                          "Shape mismatch: {bhwc, {3, 1, 1, 8}} vs {bhwc, {1, 3, 1, 8}}"),
    "add_int8_constant_first_axis_1": (add_int8((1, 10, 8)), "ADD", "gpu", None),
    "fully_connected_int8_weights": (fully_connected_int8(4), "DEQUANTIZE", "fails",
                                     "Shape mismatch: {bhwc, {4, 1, 1, 8}} vs {bhwc, {1, 1, 4, 8}}"),
    "fully_connected_int8_one_unit": (fully_connected_int8(1), "FULLY_CONNECTED", "gpu", None),
    "prelu_rank1": (prelu((8,), (8,)), "PRELU", "cpu", LINEAR_ALPHA),
    "prelu_rank1_one_alpha": (prelu((8,), (1,)), "PRELU", "gpu", None),
    "prelu_rank4_one_alpha": (prelu((1, 2, 3, 8), (1,)), "PRELU", "cpu", LINEAR_ALPHA),
    "prelu_rank4_channel_alpha": (prelu((1, 2, 3, 8), (8,)), "PRELU", "gpu", None),
    "prelu_rank3_wc_alpha": (prelu((1, 3, 8), (3, 8)), "PRELU", "cpu", HWC_ALPHA.format("3,8")),
    "prelu_rank3_wc_fp16_alpha": (prelu((1, 3, 8), (3, 8), "fp16"), "PRELU", "cpu", HWC_ALPHA.format("3,8")),
    "prelu_rank3_hwc_alpha": (prelu((1, 3, 8), (1, 3, 8)), "PRELU", "gpu", None),
    "prelu_rank4_hwc_alpha": (prelu((1, 2, 3, 8), (2, 3, 8)), "PRELU", "gpu", None),
    "prelu_scalar_alpha": (prelu((1, 2, 3, 8), ()), "PRELU", "cpu", HWC_ALPHA.format("")),
    "prelu_rank4_alpha_with_batch": (prelu((2, 2, 3, 8), (2, 1, 1, 8)), "PRELU", "cpu",
                                     "Batch size is not equal to 1."),
    "prelu_rank4_wc_alpha_of_rank3": (prelu((1, 2, 3, 8), (1, 3, 8)), "PRELU", "cpu",
                                      "Alpha shape does not match input shape."),
    "prelu_batch_2_hwc_alpha": (prelu((2, 3, 8), (1, 3, 8)), "PRELU", "fails",
                                "Unable to parse bc coord for BATCH axis."),
    "prelu_runtime_alpha": (prelu((1, 2, 3, 8), (8,), "runtime"), "PRELU", "cpu", "src has no data."),
    "prelu_constant_input_wc_alpha": (prelu((3, 8), (3, 8), source="float32"), "PRELU", "cpu",
                                      HWC_ALPHA.format("3,8")),
    "prelu_constant_input": (prelu((1, 2, 3, 8), (8,), source="float32"), "PRELU", "fails", CANNOT_READ),
    "tile_float32_constant": (constant_input("TILE", "float32"), "TILE", "cpu", ZERO_RUNTIME),
    "tile_fp16_constant": (constant_input("TILE", "fp16"), "TILE", "cpu", ZERO_RUNTIME),
    "tile_int8_constant": (constant_input("TILE", "int8"), "DEQUANTIZE", "fails",
                           "Shape mismatch: {bhwc, {3, 1, 1, 8}} vs {bhwc, {1, 1, 3, 8}}"),
    "cumsum_fp16_constant": (constant_input("CUMSUM", "fp16"), "CUMSUM", "cpu",
                             "Input/output must be float type and indices must be constant int32 type"),
    "cumsum_float32_constant": (constant_input("CUMSUM", "float32"), "CUMSUM", "fails", CANNOT_READ),
}


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, str]:
    """Every case written to one directory: name -> path."""
    root = tmp_path_factory.mktemp("provenance")
    paths = {}
    for name, (sketch, *_) in CASES.items():
        paths[name] = str(root / f"{name}.tflite")
        with open(paths[name], "wb") as f:
            f.write(sketch.to_bytes())
    return paths


@pytest.fixture(scope="module")
def checked(models) -> dict[str, dict]:
    """`check --profile litert-mldrift --format json` of every case at once, by name."""
    r = gpucompat("check", *models.values(), "--profile", "litert-mldrift", "--format", "json")
    assert r.returncode in (0, 1), r.stderr
    by_path = {m["path"]: m for m in json.loads(r.stdout)["models"]}
    return {name: by_path[path] for name, path in models.items()}


@pytest.mark.parametrize("name", CASES)
def test_check_places_the_op_as_the_accelerator_does(checked, name):
    """The case's op on the GPU, on the CPU in the runtime's words, or failing the whole compile."""
    _, op, placement, message = CASES[name]
    rec = checked[name]
    first = next(o for o in rec["ops"] if o["op"] == op)  # the case's op; a twin runtime op may follow
    groups = {g["op"]: g for g in rec["unsupported"]}
    if placement == "gpu":
        assert first["placement"] == "gpu" and op not in groups, (first, groups)
    elif placement == "cpu":
        assert not rec["summary"]["delegation_fails"] and first["placement"] == "cpu", (rec["summary"], first)
        assert groups[op]["layer"] == "partition" and groups[op]["runtime_message"] == message, groups[op]
    else:
        assert rec["summary"]["delegation_fails"] and rec["summary"]["ops_gpu"] == 0, rec["summary"]
        assert groups[op]["layer"] == "parse" and groups[op]["runtime_message"] == message, groups[op]


@pytest.mark.fidelity
def test_the_accelerator_places_them_as_predicted(models):
    """The same models compiled on LiteRT's real accelerator: no disagreement, and every op type
    it refuses is refused in the words `check` gives."""
    from gpucompat.confirm import compare, runner

    try:
        confirmed = compare.confirm(list(models.values()), runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))
    for name, c in zip(models, confirmed):
        assert c.disagreements == [], f"{name}: {c.disagreements}"
        assert c.observed.rejected == c.predicted.rejected, f"{name}: {c.observed.rejected} vs {c.predicted.rejected}"
