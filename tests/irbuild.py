"""Models written op by op through the TFLite schema's object API, without TensorFlow: for rule,
partition and rewrite tests that need one precise graph and no converter.

    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    y = m.op("ADD", [x, m.const("c", np.ones(8, np.float32))], [1, 4, 4, 8], options=AddOptionsT())
    m.output(y)
    data = m.bytes()

What it writes is a plain model a converter could have written: one subgraph, buffer 0 empty,
every constant in a buffer of its own, op codes numbered in order of first use. Tests that need
what a converter really writes (layouts, fused ops, quantization recipes) use TensorFlow's
converter (tests/modelgen.py) instead."""

from __future__ import annotations

from collections.abc import Sequence

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import dtypes, opcodes

Tensor = int  # a tensor is its index in the subgraph
_TYPE_NAMES = {v: k for k, v in vars(fb.TensorType).items() if not k.startswith("_")}


class IRModel:
    """One subgraph being written: add inputs, constants and ops in execution order."""

    def __init__(self) -> None:
        self.tensors: list[fb.TensorT] = []
        self.buffers: list[fb.BufferT] = [fb.BufferT()]
        self.codes: list[int] = []
        self.ops: list[fb.OperatorT] = []
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def tensor(self, name: str, shape: Sequence[int], dtype: str = "FLOAT32", *, signature=None,
               quantization: tuple[float, int] | None = None, buffer: int = 0) -> Tensor:
        """A new tensor; `signature` holds -1 for dynamic dims, `quantization` is (scale, zero point)."""
        t = fb.TensorT()
        t.name = name
        t.shape = np.asarray(list(shape), np.int32)
        if signature is not None:
            t.shapeSignature = np.asarray(list(signature), np.int32)
        t.type = getattr(fb.TensorType, dtype)
        t.buffer = buffer
        if quantization is not None:
            q = fb.QuantizationParametersT()
            q.scale, q.zeroPoint = [float(quantization[0])], [int(quantization[1])]
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def input(self, name: str, shape: Sequence[int], dtype: str = "FLOAT32", **kw) -> Tensor:
        """A model input."""
        t = self.tensor(name, shape, dtype, **kw)
        self.inputs.append(t)
        return t

    def const(self, name: str, value: np.ndarray, **kw) -> Tensor:
        """A constant holding `value` (its numpy dtype decides the tensor type)."""
        value = np.ascontiguousarray(value)
        buf = fb.BufferT()
        buf.data = np.frombuffer(value.tobytes(), np.uint8)
        self.buffers.append(buf)
        return self.tensor(name, value.shape, _TYPE_NAMES[dtypes.from_numpy(value.dtype)],
                           buffer=len(self.buffers) - 1, **kw)

    def op(self, name: str, inputs: Sequence[Tensor], shape: Sequence[int], dtype: str = "FLOAT32", *,
           options=None, version: int = 1, **kw) -> Tensor:
        """Append the builtin op `name` reading `inputs` (-1: an absent optional input) and
        writing one new tensor of `shape`; return that tensor."""
        out = self.tensor(f"{name.lower()}_{len(self.ops)}", shape, dtype, **kw)
        self.op_to(name, inputs, [out], options=options, version=version)
        return out

    def op_to(self, name: str, inputs: Sequence[Tensor], outputs: Sequence[Tensor], *, options=None,
              version: int = 1) -> None:
        """Append the builtin op `name` from `inputs` to existing `outputs`."""
        code = opcodes.BUILTIN[name]
        key = (code, version)
        if key not in self.codes:
            self.codes.append(key)
        o = fb.OperatorT()
        o.opcodeIndex = self.codes.index(key)
        o.inputs = np.asarray(list(inputs), np.int32)
        o.outputs = np.asarray(list(outputs), np.int32)
        if options is not None:
            o.builtinOptionsType = getattr(fb.BuiltinOptions, type(options).__name__.removesuffix("T"))
            o.builtinOptions = options
        self.ops.append(o)

    def output(self, *tensors: Tensor) -> None:
        """Mark model outputs."""
        self.outputs.extend(tensors)

    def bytes(self) -> bytes:
        """The model file."""
        g = fb.SubGraphT()
        g.tensors, g.operators, g.name = self.tensors, self.ops, "main"
        g.inputs, g.outputs = np.asarray(self.inputs, np.int32), np.asarray(self.outputs, np.int32)
        m = fb.ModelT()
        m.version, m.description, m.subgraphs, m.buffers = 3, "tests/irbuild.py", [g], self.buffers
        m.operatorCodes = []
        for code, version in self.codes:
            c = fb.OperatorCodeT()
            c.builtinCode, c.deprecatedBuiltinCode, c.version = code, min(code, 127), version
            m.operatorCodes.append(c)
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    def save(self, path) -> str:
        """Write the model file to `path`; return it as a string."""
        with open(path, "wb") as f:
            f.write(self.bytes())
        return str(path)
