"""Models written op by op without TensorFlow, for rule, partition and profile tests that need one
precise graph and no converter: the fuzz campaign's model writer (fuzz/seeds.py, the schema's
object API) with each op's output tensor made for it.

    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    m.output(m.op("ADD", [x, m.const("c", np.ones(8, np.float32))], [1, 4, 4, 8], options=fb.AddOptionsT()))
    data = m.bytes()

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

from fuzz.seeds import single_graph  # noqa: E402

Tensor = int  # a tensor is its index in the subgraph


class IRModel:
    """One subgraph being written: add inputs, constants and ops in execution order."""

    def __init__(self) -> None:
        self.builder, self.graph = single_graph()
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def tensor(self, name: str, shape: Sequence[int], dtype: str = "FLOAT32", *, signature=None,
               quantization: tuple[float, int] | None = None, data: np.ndarray | None = None) -> Tensor:
        """A new tensor (a constant when `data` is given); `signature` holds -1 for dynamic dims,
        `quantization` is (scale, zero point)."""
        quant = None if quantization is None else ([quantization[0]], [quantization[1]], 0)
        return self.graph.tensor(name, shape, getattr(fb.TensorType, dtype), data, quant, signature)

    def input(self, name: str, shape: Sequence[int], dtype: str = "FLOAT32", **kw) -> Tensor:
        """A model input."""
        t = self.tensor(name, shape, dtype, **kw)
        self.inputs.append(t)
        return t

    def const(self, name: str, value: np.ndarray, **kw) -> Tensor:
        """A constant holding `value` (its numpy dtype decides the tensor type)."""
        value = np.asarray(value)
        return self.tensor(name, value.shape, dtypes.name(dtypes.from_numpy(value.dtype)), data=value, **kw)

    def op(self, name: str, inputs: Sequence[Tensor], shape: Sequence[int], dtype: str = "FLOAT32", *,
           options=None, version: int = 1, **kw) -> Tensor:
        """Append the builtin op `name` reading `inputs` (-1: an absent optional input) and
        writing one new tensor of `shape`; return that tensor."""
        out = self.tensor(f"{name.lower()}_{len(self.graph.rec.operators)}", shape, dtype, **kw)
        self.graph.op(name, inputs, [out], options, version)
        return out

    def output(self, *tensors: Tensor) -> None:
        """Mark model outputs."""
        self.outputs.extend(tensors)

    def bytes(self) -> bytes:
        """The model file."""
        self.graph.io(self.inputs, self.outputs)
        return self.builder.finish()

    def save(self, path) -> str:
        """Write the model file to `path`; return it as a string."""
        with open(path, "wb") as f:
            f.write(self.bytes())
        return str(path)
