"""Models written op by op without TensorFlow, for rule, partition and profile tests that need one
precise graph and no converter: the fuzz campaign's model writer (fuzz/seeds.py, the schema's
object API) with each op's output tensor made for it.

    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    m.output(m.op("ADD", [x, m.const("c", np.ones(8, np.float32))], [1, 4, 4, 8], options=options("Add")))
    data = m.bytes()

Tests ask for such models by name like converted ones: register the builder with
`modelgen.builder` and the `models` fixture builds it once per session.

Tests that need what a converter really writes (layouts, fused ops, quantization recipes) use
TensorFlow's converter (tests/modelgen.py) instead."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import dtypes

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz.seeds import record_of, single_graph  # noqa: E402

Tensor = int  # a tensor is its index in the subgraph

ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}


def options(kind: str, **fields):
    """The builtin options record `kind` ("Conv2D" -> Conv2DOptionsT) with `fields` set; an
    `activation` field takes a name ("RELU6") and a `padding` field "SAME" or "VALID"."""
    rec = getattr(fb, f"{kind}OptionsT")()
    for key, value in fields.items():
        if key == "activation":
            key, value = "fusedActivationFunction", ACTIVATIONS[value]
        elif key == "padding":
            value = getattr(fb.Padding, value)
        if not hasattr(rec, key):
            raise AttributeError(f"{kind}OptionsT has no field {key}")
        setattr(rec, key, value)
    return rec


def conv_options(padding: str = "SAME", activation: str = "NONE", stride: int = 1):
    """Conv2DOptions as the converter writes them (dilation 1)."""
    return options("Conv2D", padding=padding, activation=activation, strideW=stride, strideH=stride)


class IRModel:
    """One subgraph being written: add inputs, constants and ops in execution order. With
    `signature` (a key such as "serving_default") the file gets a signature def over the model's
    inputs and outputs, named as their tensors, as converters write one; `metadata` entries
    (name -> bytes, e.g. min_runtime_version) are written as the model's metadata."""

    def __init__(self, signature: str | None = None, metadata: dict[str, bytes] | None = None) -> None:
        self.builder, self.graph = single_graph()
        self.inputs: list[int] = []
        self.outputs: list[int] = []
        self.signature = signature
        self.metadata = metadata or {}

    def tensor(self, name: str, shape: Sequence[int], dtype: str = "FLOAT32", *, signature=None,
               quantization: tuple | None = None, data: np.ndarray | None = None) -> Tensor:
        """A new tensor (a constant when `data` is given); `signature` holds -1 for dynamic dims,
        `quantization` is (scale, zero point) or, per axis, (scales, zero points, axis)."""
        if quantization is not None and len(quantization) == 2:
            quantization = ([quantization[0]], [quantization[1]], 0)
        return self.graph.tensor(name, shape, getattr(fb.TensorType, dtype), data, quantization, signature)

    def input(self, name: str, shape: Sequence[int], dtype: str = "FLOAT32", **kw) -> Tensor:
        """A model input."""
        t = self.tensor(name, shape, dtype, **kw)
        self.inputs.append(t)
        return t

    def const(self, name: str, value: np.ndarray, **kw) -> Tensor:
        """A constant holding `value` (its numpy dtype decides the tensor type)."""
        value = np.asarray(value)
        return self.tensor(name, value.shape, dtypes.name(dtypes.from_numpy(value.dtype)), data=value, **kw)

    def sparse_const(self, name: str, value: np.ndarray) -> Tensor:
        """A constant holding `value` stored sparse, as TF's converter stores mostly-zero weights:
        every axis dense but the last, which is compressed (CSR: per row of the axes before it,
        where its non-zero values start, and their positions). Read it through DENSIFY."""
        value = np.asarray(value)
        rows = value.reshape(-1, value.shape[-1])
        kept = [np.flatnonzero(r) for r in rows]
        t = self.tensor(name, value.shape, dtypes.name(dtypes.from_numpy(value.dtype)),
                        data=np.concatenate([r[k] for r, k in zip(rows, kept)]).astype(value.dtype))
        vectors = (np.cumsum([0, *map(len, kept)]), np.concatenate(kept))
        segments, indices = (fb.Int32VectorT() for _ in vectors)
        segments.values, indices.values = (v.astype(np.int32).tolist() for v in vectors)
        sparse = fb.SparsityParametersT()
        sparse.traversalOrder = list(range(value.ndim))
        sparse.dimMetadata = [_dense_axis(d) for d in value.shape[:-1]] + [_compressed_axis(segments, indices)]
        self.graph.rec.tensors[t].sparsity = sparse
        return t

    def op(self, name: str, inputs: Sequence[Tensor], shape: Sequence[int], dtype: str = "FLOAT32", *,
           options=None, version: int = 1, output_name: str | None = None, **kw) -> Tensor:
        """Append the builtin op `name` reading `inputs` (-1: an absent optional input) and
        writing one new tensor of `shape` (named `output_name`, else after the op); return it."""
        out = self.tensor(output_name or f"{name.lower()}_{len(self.graph.rec.operators)}", shape, dtype, **kw)
        self.graph.op(name, inputs, [out], options, version)
        return out

    def custom(self, code: str, inputs: Sequence[Tensor], shape: Sequence[int], dtype: str = "FLOAT32",
               options: bytes = b"") -> Tensor:
        """Append a custom op `code` (its raw custom `options`, none by default) writing one new
        tensor of `shape`."""
        out = self.tensor(f"{code}_{len(self.graph.rec.operators)}", shape, dtype)
        rec = fb.OperatorCodeT()
        rec.builtinCode = rec.deprecatedBuiltinCode = fb.BuiltinOperator.CUSTOM
        rec.customCode, rec.version = code, 1
        self.builder.model.operatorCodes.append(rec)
        index = len(self.builder.model.operatorCodes) - 1
        self.graph.rec.operators.append(record_of(fb.OperatorT, opcodeIndex=index, inputs=np.asarray(inputs, np.int32),
                                                  outputs=np.asarray([out], np.int32),
                                                  customOptions=list(options) or None))
        return out

    def split(self, name: str, inputs: Sequence[Tensor], shapes: Sequence[Sequence[int]], *,
              options=None) -> list[Tensor]:
        """Append the builtin op `name` writing one new float tensor per shape (SPLIT, UNPACK...)."""
        outs = [self.tensor(f"{name.lower()}_{len(self.graph.rec.operators)}:{i}", s) for i, s in enumerate(shapes)]
        self.graph.op(name, inputs, outs, options)
        return outs

    def output(self, *tensors: Tensor) -> None:
        """Mark model outputs."""
        self.outputs.extend(tensors)

    def bytes(self) -> bytes:
        """The model file."""
        self.graph.io(self.inputs, self.outputs)
        if self.signature:
            sig = fb.SignatureDefT()
            sig.signatureKey, sig.subgraphIndex = self.signature, 0
            sig.inputs, sig.outputs = ([record_of(fb.TensorMapT, name=self.graph.rec.tensors[t].name, tensorIndex=t)
                                        for t in tensors] for tensors in (self.inputs, self.outputs))
            self.builder.model.signatureDefs = [sig]
        self.builder.model.metadata = [record_of(fb.MetadataT, name=name, buffer=self.builder.buffer(value))
                                       for name, value in self.metadata.items()] or None
        return self.builder.finish()

    def save(self, path) -> str:
        """Write the model file to `path`; return it as a string."""
        with open(path, "wb") as f:
            f.write(self.bytes())
        return str(path)


# options records the converter writes for these ops even when every field is at its default
_OPTIONS = {"ADD": "Add", "SUB": "Sub", "MUL": "Mul", "PAD": "Pad", "EXP": "Exp", "MIRROR_PAD": "MirrorPad"}


def one_op(op: str, shape: Sequence[int], operand: np.ndarray | None = None, *, operand_first: bool = False,
           **fields) -> bytes:
    """A model of one builtin op reading a float input of `shape` and, when given, the constant
    `operand` (first when `operand_first`), as the converter writes `x OP c`: the output shape is
    the operands' broadcast, the padded shape (PAD, MIRROR_PAD) or the permuted one (TRANSPOSE).
    `fields` go into the op's options record (SOFTMAX's beta defaults to 1)."""
    m = IRModel(signature="serving_default")
    x = m.input("x", shape)
    if operand is None:
        inputs, out = [x], list(shape)
    else:
        c = m.const(f"{op.lower()}/operand", operand)
        inputs = [c, x] if operand_first else [x, c]
        if op in ("PAD", "MIRROR_PAD"):
            out = [d + int(operand[i].sum()) for i, d in enumerate(shape)]
        elif op == "TRANSPOSE":
            out = [shape[i] for i in operand]
        else:
            out = list(np.broadcast_shapes(tuple(shape), operand.shape))
    kind = "Softmax" if op == "SOFTMAX" else _OPTIONS.get(op)
    fields = {"beta": 1.0, **fields} if op == "SOFTMAX" else fields
    m.output(m.op(op, inputs, out, options=options(kind, **fields) if kind else None))
    return m.bytes()


def _dense_axis(size: int):
    """A sparse tensor's axis stored whole."""
    rec = fb.DimensionMetadataT()
    rec.format, rec.denseSize = fb.DimensionType.DENSE, int(size)
    return rec


def _compressed_axis(segments, indices):
    """A sparse tensor's last axis stored compressed (CSR)."""
    rec = fb.DimensionMetadataT()
    rec.format = fb.DimensionType.SPARSE_CSR
    rec.arraySegmentsType = rec.arrayIndicesType = fb.SparseIndexVector.Int32Vector
    rec.arraySegments, rec.arrayIndices = segments, indices
    return rec
