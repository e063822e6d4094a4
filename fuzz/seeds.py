"""The fuzz campaign's seed corpus: small valid .tflite models built through the flatbuffer object
API, without TensorFlow, so the campaign runs anywhere gpucompat is installed and every run starts
from the same bytes. Each seed exercises a different part of the tool: GPU and CPU ops, several
partitions, quantization, fp16 weights, control flow subgraphs, signature defs and metadata, a
dynamic input, and the patterns the rewrites look for."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb

F32, F16, I32, I8, BOOL = (fb.TensorType.FLOAT32, fb.TensorType.FLOAT16, fb.TensorType.INT32,
                           fb.TensorType.INT8, fb.TensorType.BOOL)
SEEDS: dict[str, Callable[[], bytes]] = {}


def seed(fn: Callable[[], bytes]) -> Callable[[], bytes]:
    """Register a seed builder under its function name."""
    SEEDS[fn.__name__] = fn
    return fn


class Builder:
    """A model under construction: op codes and buffers shared by its subgraphs."""

    def __init__(self) -> None:
        self.model = fb.ModelT()
        self.model.version = 3
        self.model.operatorCodes = []
        self.model.buffers = [fb.BufferT()]
        self.model.subgraphs = []
        self.rng = np.random.default_rng(len(SEEDS))

    def subgraph(self, name: str) -> Subgraph:
        """A new, empty subgraph (the first one made is the main graph)."""
        sg = Subgraph(self, name)
        self.model.subgraphs.append(sg.rec)
        return sg

    def opcode(self, op: str, version: int) -> int:
        code = getattr(fb.BuiltinOperator, op)
        for i, c in enumerate(self.model.operatorCodes):
            if c.builtinCode == code and c.version == version:
                return i
        rec = fb.OperatorCodeT()
        rec.builtinCode, rec.deprecatedBuiltinCode, rec.version = code, min(code, 127), version
        self.model.operatorCodes.append(rec)
        return len(self.model.operatorCodes) - 1

    def buffer(self, data: bytes) -> int:
        rec = fb.BufferT()
        rec.data = np.frombuffer(data, dtype=np.uint8)
        self.model.buffers.append(rec)
        return len(self.model.buffers) - 1

    def weights(self, shape: Sequence[int], scale: float = 0.5) -> np.ndarray:
        """Seeded float32 weights."""
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def finish(self) -> bytes:
        b = flatbuffers.Builder(4096)
        b.Finish(self.model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


class Subgraph:
    """One subgraph: tensors, operators in plan order, inputs and outputs."""

    def __init__(self, owner: Builder, name: str) -> None:
        self.owner = owner
        self.rec = fb.SubGraphT()
        self.rec.name, self.rec.tensors, self.rec.operators = name, [], []

    def tensor(self, name: str, shape: Sequence[int], dtype: int = F32, data: np.ndarray | None = None,
               quant: tuple[Sequence[float], Sequence[int], int] | None = None,
               signature: Sequence[int] | None = None) -> int:
        """Add a tensor (a constant when `data` is given) and return its index."""
        rec = fb.TensorT()
        rec.name, rec.type, rec.shape = name, dtype, np.asarray(shape, dtype=np.int32)
        rec.buffer = self.owner.buffer(np.ascontiguousarray(data).tobytes()) if data is not None else 0
        if signature is not None:
            rec.shapeSignature = np.asarray(signature, dtype=np.int32)
        if quant is not None:
            q = fb.QuantizationParametersT()
            q.scale = np.asarray(quant[0], dtype=np.float32)
            q.zeroPoint = np.asarray(quant[1], dtype=np.int64)
            q.quantizedDimension = quant[2]
            rec.quantization = q
        self.rec.tensors.append(rec)
        return len(self.rec.tensors) - 1

    def const(self, name: str, value: np.ndarray) -> int:
        """A float32 (or the value's own integer type) constant tensor."""
        dtype = {np.dtype(np.float32): F32, np.dtype(np.int32): I32, np.dtype(np.float16): F16}[value.dtype]
        return self.tensor(name, value.shape, dtype, value)

    def op(self, op: str, inputs: Sequence[int], outputs: Sequence[int], options=None, version: int = 1) -> None:
        """Append an operator to the plan; the union type is derived from the options record."""
        rec = fb.OperatorT()
        rec.opcodeIndex = self.owner.opcode(op, version)
        rec.inputs = np.asarray(inputs, dtype=np.int32)
        rec.outputs = np.asarray(outputs, dtype=np.int32)
        if options is not None:
            rec.builtinOptionsType = getattr(fb.BuiltinOptions, type(options).__name__.removesuffix("T"))
            rec.builtinOptions = options
        self.rec.operators.append(rec)

    def io(self, inputs: Sequence[int], outputs: Sequence[int]) -> None:
        self.rec.inputs = np.asarray(inputs, dtype=np.int32)
        self.rec.outputs = np.asarray(outputs, dtype=np.int32)


def single_graph() -> tuple[Builder, Subgraph]:
    """A new model and its main (only) subgraph."""
    b = Builder()
    return b, b.subgraph("main")


def record_of(cls, **fields):
    rec = cls()
    for k, v in fields.items():
        setattr(rec, k, v)
    return rec


def _conv(b: Builder, g: Subgraph, x: int, cin: int, cout: int, name: str, relu: bool = True) -> int:
    w = g.const(f"{name}/w", b.weights((cout, 3, 3, cin)))
    bias = g.const(f"{name}/b", b.weights((cout,), 0.1))
    out = g.tensor(name, (1, 8, 8, cout))
    g.op("CONV_2D", [x, w, bias], [out], record_of(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1,
         strideH=1, dilationWFactor=1, dilationHFactor=1,
         fusedActivationFunction=fb.ActivationFunctionType.RELU if relu else 0))
    return out


@seed
def conv_stack() -> bytes:
    """3-channel input, conv, depthwise conv, add, mean: all GPU, and the RGB input rewrite applies."""
    b, g = single_graph()
    x = g.tensor("image", (1, 8, 8, 3))
    c = _conv(b, g, x, 3, 4, "conv")
    dw = g.tensor("dw", (1, 8, 8, 4))
    g.op("DEPTHWISE_CONV_2D", [c, g.const("dw/w", b.weights((1, 3, 3, 4))), g.const("dw/b", b.weights((4,)))],
         [dw], record_of(fb.DepthwiseConv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1,
                        depthMultiplier=1, dilationWFactor=1, dilationHFactor=1), version=2)
    s = g.tensor("sum", (1, 8, 8, 4))
    g.op("ADD", [c, dw], [s], record_of(fb.AddOptionsT))
    m = g.tensor("mean", (1, 1, 1, 4))
    g.op("MEAN", [s, g.const("axes", np.array([1, 2], np.int32))], [m], record_of(fb.ReducerOptionsT, keepDims=True))
    g.io([x], [m])
    return b.finish()


@seed
def islands() -> bytes:
    """GPU ops around CPU-only ops (CUMSUM and a float GATHER_ND): several partitions."""
    b, g = single_graph()
    x = g.tensor("x", (1, 8, 8, 4))
    c = _conv(b, g, x, 4, 4, "conv")
    cu = g.tensor("cumsum", (1, 8, 8, 4))
    g.op("CUMSUM", [c, g.const("axis", np.array(3, np.int32))], [cu], record_of(fb.CumsumOptionsT))
    r = g.tensor("reshaped", (1, 256))
    g.op("RESHAPE", [cu, g.const("shape", np.array([1, 256], np.int32))], [r],
         record_of(fb.ReshapeOptionsT, newShape=[1, 256]))
    gn = g.tensor("gathered", (1, 2))
    g.op("GATHER_ND", [r, g.const("idx", np.array([[[0, 3], [0, 7]]], np.int32))], [gn])
    sm = g.tensor("probs", (1, 256))
    g.op("SOFTMAX", [r], [sm], record_of(fb.SoftmaxOptionsT, beta=1.0))
    cat = g.tensor("cat", (1, 258))
    g.op("CONCATENATION", [sm, gn], [cat], record_of(fb.ConcatenationOptionsT, axis=1))
    g.io([x], [cat, sm])
    return b.finish()


@seed
def quantized() -> bytes:
    """Full-integer conv with per-channel weights between QUANTIZE and DEQUANTIZE."""
    b, g = single_graph()
    x = g.tensor("x", (1, 8, 8, 4))
    q = g.tensor("xq", (1, 8, 8, 4), I8, quant=([0.05], [3], 0))
    g.op("QUANTIZE", [x], [q])
    w = g.tensor("w", (4, 3, 3, 4), I8, np.arange(-72, 72, dtype=np.int8).reshape(4, 3, 3, 4),
                 quant=([0.01, 0.02, 0.03, 0.04], [0, 0, 0, 0], 0))
    bias = g.tensor("b", (4,), I32, np.array([10, -10, 5, 0], np.int32),
                    quant=([0.0005, 0.001, 0.0015, 0.002], [0, 0, 0, 0], 0))
    y = g.tensor("yq", (1, 8, 8, 4), I8, quant=([0.1], [-2], 0))
    g.op("CONV_2D", [q, w, bias], [y], record_of(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1,
         dilationWFactor=1, dilationHFactor=1), version=3)
    out = g.tensor("y", (1, 8, 8, 4))
    g.op("DEQUANTIZE", [y], [out], version=2)
    g.io([x], [out])
    return b.finish()


@seed
def fp16_weights() -> bytes:
    """fp16 constant weights DEQUANTIZEd to float: the FP16 partition-helper rule."""
    b, g = single_graph()
    x = g.tensor("x", (1, 8, 8, 4))
    w16 = g.const("w16", b.weights((4, 3, 3, 4)).astype(np.float16))
    w = g.tensor("w", (4, 3, 3, 4))
    g.op("DEQUANTIZE", [w16], [w], version=3)
    y = g.tensor("y", (1, 8, 8, 4))
    g.op("CONV_2D", [x, w, g.const("b", b.weights((4,)))], [y],
         record_of(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1, dilationWFactor=1,
                   dilationHFactor=1))
    g.io([x], [y])
    return b.finish()


@seed
def while_loop() -> bytes:
    """A WHILE op with its cond and body subgraphs: control flow stays on the CPU."""
    b = Builder()
    main, cond, body = b.subgraph("main"), b.subgraph("cond"), b.subgraph("body")
    i, x = main.tensor("i", (1,), I32), main.tensor("x", (1, 4))
    i2, x2 = main.tensor("i_out", (1,), I32), main.tensor("x_out", (1, 4))
    main.op("WHILE", [i, x], [i2, x2], record_of(fb.WhileOptionsT, condSubgraphIndex=1, bodySubgraphIndex=2))
    main.io([i, x], [x2])
    ci, cx, flag = cond.tensor("i", (1,), I32), cond.tensor("x", (1, 4)), cond.tensor("go", (1,), BOOL)
    cond.op("LESS", [ci, cond.const("limit", np.array([3], np.int32))], [flag])
    cond.io([ci, cx], [flag])
    bi, bx = body.tensor("i", (1,), I32), body.tensor("x", (1, 4))
    bi2, bx2 = body.tensor("i_next", (1,), I32), body.tensor("x_next", (1, 4))
    body.op("ADD", [bi, body.const("one", np.array([1], np.int32))], [bi2], record_of(fb.AddOptionsT))
    body.op("MUL", [bx, body.const("two", np.full((1, 4), 2, np.float32))], [bx2], record_of(fb.MulOptionsT))
    body.io([bi, bx], [bi2, bx2])
    return b.finish()


@seed
def dilated_conv() -> bytes:
    """SPACE_TO_BATCH_ND -> CONV_2D -> BATCH_TO_SPACE_ND, the converter's dilated convolution."""
    b, g = single_graph()
    x = g.tensor("x", (1, 8, 8, 4))
    s2b = g.tensor("s2b", (4, 6, 6, 4))
    g.op("SPACE_TO_BATCH_ND", [x, g.const("block", np.array([2, 2], np.int32)),
                               g.const("pad", np.array([[2, 2], [2, 2]], np.int32))], [s2b])
    c = g.tensor("c", (4, 4, 4, 4))
    g.op("CONV_2D", [s2b, g.const("w", b.weights((4, 3, 3, 4))), g.const("b", b.weights((4,)))], [c],
         record_of(fb.Conv2DOptionsT, padding=fb.Padding.VALID, strideW=1, strideH=1,
                  dilationWFactor=1, dilationHFactor=1))
    y = g.tensor("y", (1, 8, 8, 4))
    g.op("BATCH_TO_SPACE_ND", [c, g.const("block2", np.array([2, 2], np.int32)),
                               g.const("crop", np.array([[0, 0], [0, 0]], np.int32))], [y])
    g.io([x], [y])
    return b.finish()


@seed
def signature_dynamic() -> bytes:
    """A dynamic batch input, a fully connected layer, a signature def and a metadata entry."""
    b, g = single_graph()
    x = g.tensor("x", (1, 6), signature=(-1, 6))
    h = g.tensor("h", (1, 5), signature=(-1, 5))
    g.op("FULLY_CONNECTED", [x, g.const("fc/w", b.weights((5, 6))), g.const("fc/b", b.weights((5,)))], [h],
         record_of(fb.FullyConnectedOptionsT, fusedActivationFunction=fb.ActivationFunctionType.RELU6))
    t = g.tensor("t", (1, 5), signature=(-1, 5))
    g.op("TANH", [h], [t])
    g.io([x], [t])
    sig = fb.SignatureDefT()
    sig.signatureKey, sig.subgraphIndex = "serving_default", 0
    sig.inputs = [record_of(fb.TensorMapT, name="x", tensorIndex=x)]
    sig.outputs = [record_of(fb.TensorMapT, name="t", tensorIndex=t)]
    b.model.signatureDefs = [sig]
    b.model.metadata = [record_of(fb.MetadataT, name="min_runtime_version", buffer=b.buffer(b"1.5.0\x00"))]
    return b.finish()


@seed
def shapes() -> bytes:
    """Pad, strided slice, transpose, resize and a 5-D reshape: shape-moving ops and the rank gate."""
    b, g = single_graph()
    x = g.tensor("x", (1, 4, 4, 2))
    p = g.tensor("padded", (1, 6, 6, 2))
    g.op("PAD", [x, g.const("pads", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))], [p])
    s = g.tensor("sliced", (1, 4, 4, 2))
    g.op("STRIDED_SLICE", [p, g.const("begin", np.array([0, 1, 1, 0], np.int32)),
                           g.const("end", np.array([1, 5, 5, 2], np.int32)),
                           g.const("strides", np.array([1, 1, 1, 1], np.int32))], [s],
         record_of(fb.StridedSliceOptionsT))
    t = g.tensor("transposed", (1, 2, 4, 4))
    g.op("TRANSPOSE", [s, g.const("perm", np.array([0, 3, 1, 2], np.int32))], [t])
    r = g.tensor("resized", (1, 8, 8, 4))
    g.op("RESIZE_BILINEAR", [t, g.const("size", np.array([8, 8], np.int32))], [r],
         record_of(fb.ResizeBilinearOptionsT))
    five = g.tensor("five_d", (1, 4, 4, 4, 4))
    g.op("RESHAPE", [r, g.const("shape5", np.array([1, 4, 4, 4, 4], np.int32))], [five])
    g.io([x], [five])
    return b.finish()


@seed
def recurrent() -> bytes:
    """A full-kernel LSTM step (20 inputs, optional ones absent) whose states are variable tensors,
    then a TANH: state carried between runs, and a model LiteRT's loader refuses."""
    b, g = single_graph()
    x = g.tensor("x", (1, 3))
    absent = -1
    gate_weights = [g.const(f"w{i}", b.weights((4, 3))) for i in range(4)]
    recurrent_weights = [g.const(f"r{i}", b.weights((4, 4))) for i in range(4)]
    biases = [g.const(f"b{i}", b.weights((4,), 0.1)) for i in range(4)]
    h, c = g.tensor("h_state", (1, 4)), g.tensor("c_state", (1, 4))
    for state in (h, c):
        g.rec.tensors[state].isVariable = True
    out = g.tensor("lstm_out", (1, 4))
    g.op("LSTM", [x, *gate_weights, *recurrent_weights, absent, absent, absent, *biases, absent, absent, h, c],
         [out], record_of(fb.LSTMOptionsT, fusedActivationFunction=fb.ActivationFunctionType.TANH), version=1)
    y = g.tensor("y", (1, 4))
    g.op("TANH", [out], [y])
    g.io([x], [y])
    return b.finish()


@seed
def movement() -> bytes:
    """Concatenation, split, tile, mirror padding, a constant gather and depth-to-space: the data
    movement kernels on odd channel counts."""
    b, g = single_graph()
    x = g.tensor("x", (1, 4, 4, 3))
    cat = g.tensor("concat", (1, 4, 4, 6))
    g.op("CONCATENATION", [x, x], [cat], record_of(fb.ConcatenationOptionsT, axis=3))
    halves = [g.tensor(f"half{i}", (1, 4, 2, 6)) for i in range(2)]
    g.op("SPLIT", [g.const("split_axis", np.array(2, np.int32)), cat], halves, record_of(fb.SplitOptionsT, numSplits=2))
    tiled = g.tensor("tiled", (1, 4, 4, 6))
    g.op("TILE", [halves[0], g.const("multiples", np.array([1, 1, 2, 1], np.int32))], [tiled])
    padded = g.tensor("mirrored", (1, 6, 6, 6))
    g.op("MIRROR_PAD", [tiled, g.const("mirror", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))], [padded],
         record_of(fb.MirrorPadOptionsT, mode=fb.MirrorPadMode.REFLECT))
    picked = g.tensor("gathered", (1, 6, 6, 4))
    g.op("GATHER", [padded, g.const("channels", np.array([5, 0, 2, 3], np.int32))], [picked],
         record_of(fb.GatherOptionsT, axis=3))
    y = g.tensor("y", (1, 12, 12, 1))
    g.op("DEPTH_TO_SPACE", [picked], [y], record_of(fb.DepthToSpaceOptionsT, blockSize=2))
    g.io([x], [y, halves[1]])
    return b.finish()


def corpus() -> dict[str, bytes]:
    """Every seed model's bytes, by name."""
    return {name: build() for name, build in SEEDS.items()}
