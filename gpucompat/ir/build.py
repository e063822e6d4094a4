"""Making new IR pieces for rewrites: constant tensors, activation tensors and operators.

Everything made here is appended to a graph (tensors) or returned ready for `Graph.insert_op`
(operators); the writer gives new op codes and buffers their indices when the model is saved.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import dtypes
from gpucompat.ir.graph import Graph
from gpucompat.ir.model import Model
from gpucompat.ir.nodes import Op, OpCode, Tensor


def empty_model() -> tuple[Model, Graph]:
    """A new model with one empty subgraph (no tensors, ops, inputs or outputs), and that subgraph."""
    record = fb.ModelT()
    record.version = 3
    record.operatorCodes, record.buffers = [], [fb.BufferT()]
    model = Model(record)
    sub = fb.SubGraphT()
    record.subgraphs = [sub]
    graph = Graph(sub, model)
    model.graphs.append(graph)
    return model, graph


def tensor(graph: Graph, name: str, shape: Sequence[int], dtype: int,
           signature: Sequence[int] | None = None) -> Tensor:
    """A new runtime tensor of `graph`; `signature` (with -1 for dynamic dims) only when it
    differs from `shape`."""
    rec = fb.TensorT()
    rec.name = name
    rec.type = dtype
    rec.shape = np.asarray([max(int(d), 1) if d < 0 else int(d) for d in shape], dtype=np.int32)
    if signature is not None and any(d < 0 for d in signature):
        rec.shapeSignature = np.asarray(list(signature), dtype=np.int32)
    return graph.add_tensor(rec)


def constant(graph: Graph, name: str, value: np.ndarray) -> Tensor:
    """A new constant tensor holding `value` (its dtype decides the tensor type; a 0-d value is a
    rank-0 tensor), with its own buffer: rewrites never edit a buffer another tensor may share."""
    shape = np.shape(value)
    value = np.ascontiguousarray(value)  # at least 1-d
    rec = fb.TensorT()
    rec.name = name
    rec.type = dtypes.from_numpy(value.dtype)
    rec.shape = np.asarray(shape, dtype=np.int32)
    rec.buffer = graph.model.add_buffer(value)
    return graph.add_tensor(rec)


def quantize(t: Tensor, quantization: tuple | None) -> Tensor:
    """`t` marked quantized by `quantization` (scale, zero point), per channel of its first axis
    when the scale is a sequence; unchanged for None."""
    if quantization is not None:
        scales = np.atleast_1d(np.asarray(quantization[0], np.float32))
        q = fb.QuantizationParametersT()
        q.scale, q.zeroPoint = [float(v) for v in scales], [int(quantization[1])] * len(scales)
        q.quantizedDimension = 0
        t.fb.quantization = q
    return t


def reshape_tensor(t: Tensor, shape: Sequence[int], signature: Sequence[int] | None = None) -> None:
    """Give an existing runtime tensor a new shape (and shape signature, -1 = dynamic)."""
    t.fb.shape = np.asarray([1 if d < 0 else int(d) for d in shape], dtype=np.int32)
    sig = list(signature) if signature is not None else list(shape)
    t.fb.shapeSignature = np.asarray(sig, dtype=np.int32) if any(d < 0 for d in sig) else None


def operator(graph: Graph, op_name: str, inputs: Sequence[Tensor | None], outputs: Sequence[Tensor],
             options=None, version: int = 1) -> Op:
    """A new builtin op (not yet in the plan: insert it with `Graph.insert_op`). `options` is the
    builtin options record (e.g. PadOptionsT()); its union type is derived from its class name."""
    from gpucompat.ir import opcodes

    rec = fb.OperatorT()
    if options is not None:
        rec.builtinOptionsType = getattr(fb.BuiltinOptions, type(options).__name__.removesuffix("T"))
        rec.builtinOptions = options
    return Op(rec, graph, OpCode(opcodes.BUILTIN[op_name], None, version), list(inputs), list(outputs))


def retype(op: Op, op_name: str, options=None, version: int = 1) -> None:
    """Turn `op` into another builtin op in place (same inputs and outputs unless changed later)."""
    fresh = operator(op.graph, op_name, op.inputs, op.outputs, options, version)
    op.code = fresh.code
    op.fb.builtinOptionsType = fresh.fb.builtinOptionsType
    op.fb.builtinOptions = fresh.fb.builtinOptions


class Sketch:
    """A one-subgraph model written op by op, without a converter: the calibration probes
    (rules/support/probes.py) and `confirm`'s device probe.

        s = Sketch()
        x = s.input("x", (1, 8, 8, 4))
        s.output(s.op("ADD", [x, s.const("c", np.ones(4, np.float32))], (1, 8, 8, 4)))
        data = s.to_bytes()
    """

    def __init__(self) -> None:
        self.model, self.graph = empty_model()

    def input(self, name: str, shape: Sequence[int], dtype: int = dtypes.FLOAT32,
              quantization: tuple | None = None) -> Tensor:
        """A new model input (`quantization` as for `const`)."""
        t = quantize(tensor(self.graph, name, shape, dtype), quantization)
        self.graph.inputs.append(t)
        return t

    def const(self, name: str, value: np.ndarray, quantization: tuple | None = None) -> Tensor:
        """A new constant holding `value`; `quantization` (scale, zero point) marks it quantized,
        per channel of its first axis when the scale is a sequence."""
        return quantize(constant(self.graph, name, np.asarray(value)), quantization)

    def op(self, op_name: str, inputs: Sequence[Tensor | None], shape: Sequence[int], dtype: int = dtypes.FLOAT32,
           options=None, version: int = 1, quantization: tuple | None = None) -> Tensor:
        """Append the builtin op `op_name` reading `inputs` and writing one new tensor of `shape`
        and `dtype` (`quantization` as for `const`); return that tensor."""
        out = quantize(tensor(self.graph, f"{op_name.lower()}_{len(self.graph.ops)}", shape, dtype), quantization)
        self.graph.ops.append(operator(self.graph, op_name, inputs, [out], options, version))
        return out

    def custom(self, code: str, inputs: Sequence[Tensor | None], shape: Sequence[int], options: bytes,
               dtype: int = dtypes.FLOAT32) -> Tensor:
        """Append the custom op `code` (its raw `options`, as a converter writes them) reading
        `inputs` and writing one new tensor of `shape`; return that tensor."""
        from gpucompat.ir import opcodes

        out = tensor(self.graph, f"{code.lower()}_{len(self.graph.ops)}", shape, dtype)
        rec = fb.OperatorT()
        rec.customOptions = list(options)
        self.graph.ops.append(Op(rec, self.graph, OpCode(opcodes.CUSTOM, code, 1), list(inputs), [out]))
        return out

    def output(self, *tensors: Tensor) -> None:
        """Mark model outputs."""
        self.graph.outputs.extend(tensors)

    def to_bytes(self) -> bytes:
        """The model file."""
        from gpucompat import ir

        self.graph.link()
        return ir.to_bytes(self.model)
