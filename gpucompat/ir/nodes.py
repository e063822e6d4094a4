"""Tensors and operators of the IR: thin wrappers over the flatbuffer object API records.

Each wrapper keeps its flatbuffer record (`fb`) so that every field the schema has survives a
load/save untouched; the wrappers add what analyses and rewrites need: object links instead of
indices (op.inputs are Tensor objects, tensor.producer / tensor.consumers are Op objects).
Edits go through `Op.set_input` / `set_inputs` / `set_output` and the Graph's `insert_op`,
`remove_op`, `replace_op` and `replace_uses`, which keep those links current.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gpucompat.ir import dtypes, opcodes

if TYPE_CHECKING:
    from gpucompat.ir.graph import Graph


@dataclass(frozen=True)
class OpCode:
    """What an operator is: builtin code, custom code (for CUSTOM ops) and version."""

    builtin: int
    custom: str | None = None
    version: int = 1

    @functools.cached_property  # asked for every op by every pattern; a frozen dataclass can still cache
    def name(self) -> str:
        """The builtin name ("CONV_2D"), or the custom code for a custom op."""
        if self.builtin == opcodes.CUSTOM:
            return self.custom or "CUSTOM"
        return opcodes.name(self.builtin)


class Tensor:
    """One tensor of a subgraph; `fb` is its TensorT record."""

    __slots__ = ("fb", "graph", "producer", "consumers")

    def __init__(self, fb, graph: Graph):
        self.fb = fb
        self.graph = graph
        self.producer: Op | None = None
        self.consumers: list[Op] = []

    @property
    def index(self) -> int:
        """Position in the subgraph's tensor list (what the file and the runtime call tensor#N)."""
        return self.graph.tensor_index(self)

    @property
    def name(self) -> str:
        """The tensor's name ("" when the file has none)."""
        n = self.fb.name
        return n.decode("utf-8", "replace") if isinstance(n, bytes) else (n or "")

    @property
    def shape(self) -> tuple[int, ...]:
        """Static shape as stored (dynamic dimensions are stored as 1)."""
        shape = self.fb.shape
        if type(shape) is tuple:  # the reader's: Python ints already
            return shape
        return tuple(int(d) for d in (shape if shape is not None else ()))

    @property
    def signature(self) -> tuple[int, ...]:
        """Shape signature: -1 marks a dynamic dimension; the static shape when absent."""
        sig = self.fb.shapeSignature
        if type(sig) is tuple:  # the reader's: Python ints already
            return sig if sig else self.shape
        return tuple(int(d) for d in sig) if sig is not None and len(sig) else self.shape

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def is_dynamic(self) -> bool:
        """True when the shape signature has a dynamic (-1) dimension."""
        return any(d < 0 for d in self.signature)

    @property
    def dtype(self) -> int:
        """TensorType enum value."""
        return int(self.fb.type)

    @property
    def dtype_name(self) -> str:
        """TensorType name ("FLOAT32")."""
        return dtypes.name(self.dtype)

    @property
    def num_elements(self) -> int:
        """Element count of the static shape, in Python integers (never overflows)."""
        n = 1
        for d in self.shape:
            n *= max(d, 0)
        return n

    @property
    def nbytes(self) -> int:
        """Bytes of the static shape at this tensor's element size."""
        return self.num_elements * dtypes.itemsize(self.dtype)

    @property
    def buffer(self):
        """The BufferT this tensor points to (buffer 0 is the empty sentinel)."""
        return self.graph.model.buffer(self.fb.buffer)

    @property
    def is_constant(self) -> bool:
        """True when the runtime reads the tensor from the file (its kTfLiteMmapRo tensors), by
        the rule of interpreter_builder.cc ParseTensors: not a variable, a buffer index other than
        0 (the empty sentinel), and a buffer that has a data vector, an empty one included (a
        zero-element constant such as RESHAPE's shape `[0]` is read-only too), or data stored
        after the flatbuffer (offset > 1 and size > 0)."""
        fb = self.fb
        if fb.isVariable:
            return False
        buffers = self.graph.model.fb.buffers  # Model.buffer inlined: asked about every tensor of every op
        index = fb.buffer
        if buffers is None or not 0 < index < len(buffers):
            return False
        buf = buffers[index]
        return buf is not None and (buf.data is not None or (buf.offset or 0) > 1 and (buf.size or 0) > 0)

    @property
    def is_variable(self) -> bool:
        """True for resource/state variables."""
        return bool(self.fb.isVariable)

    @property
    def is_blockwise_quantized(self) -> bool:
        """True for blockwise quantization (INT4 weights with per-block scales): its details name
        other tensors of the subgraph by index (the scales), which gpucompat does not renumber."""
        q = self.quantization
        return q is not None and type(q.details).__name__.startswith("BlockwiseQuantization")

    @property
    def is_sparse(self) -> bool:
        """True when the constant data is stored in a sparse format (read through DENSIFY)."""
        return self.fb.sparsity is not None

    @property
    def quantization(self):
        """QuantizationParametersT, or None when the tensor is not quantized."""
        q = self.fb.quantization
        if q is None or (q.scale is None or len(q.scale) == 0) and q.details is None:
            return None
        return q

    @property
    def is_per_channel(self) -> bool:
        """True for per-axis quantization (more than one scale)."""
        q = self.quantization
        return q is not None and q.scale is not None and len(q.scale) > 1

    def data(self) -> np.ndarray | None:
        """The constant value as a numpy array of the tensor's shape (None when not constant or
        when the stored bytes do not match the shape, e.g. sparse or sub-byte storage)."""
        if not self.is_constant:
            return None
        dt = dtypes.numpy_dtype(self.dtype)
        raw = np.asarray(self.buffer.data, dtype=np.uint8)
        if dt is None or raw.size != self.num_elements * dt.itemsize or self.is_sparse:
            return None
        return raw.view(dt).reshape(self.shape)

    def __repr__(self) -> str:
        return f"Tensor#{self.index}({self.name!r}, {self.dtype_name}{list(self.signature)})"


class Op:
    """One operator of a subgraph; `fb` is its OperatorT record."""

    __slots__ = ("fb", "graph", "code", "inputs", "outputs", "intermediates")

    def __init__(self, fb, graph: Graph, code: OpCode, inputs, outputs, intermediates=()):
        self.fb = fb
        self.graph = graph
        self.code = code
        self.inputs: list[Tensor | None] = list(inputs)
        self.outputs: list[Tensor] = list(outputs)
        self.intermediates: list[Tensor] = list(intermediates)

    @property
    def index(self) -> int:
        """Position in the subgraph's execution plan (the runtime's node index)."""
        return self.graph.op_index(self)

    @property
    def name(self) -> str:
        """Builtin name or custom code."""
        return self.code.name

    @property
    def builtin(self) -> int:
        """Builtin op code (32 for custom ops)."""
        return self.code.builtin

    @property
    def version(self) -> int:
        """Operator version."""
        return self.code.version

    @property
    def is_custom(self) -> bool:
        """True for a CUSTOM op."""
        return self.code.builtin == opcodes.CUSTOM

    @property
    def options(self):
        """The builtin options record (e.g. Conv2DOptionsT), or None."""
        return self.fb.builtinOptions

    @property
    def custom_options(self) -> bytes:
        """Raw custom options (flexbuffer for MediaPipe ops)."""
        co = self.fb.customOptions
        return bytes(np.asarray(co, dtype=np.uint8)) if co is not None else b""

    def input(self, i: int) -> Tensor | None:
        """Input i, or None when absent or optional (-1 in the file)."""
        return self.inputs[i] if 0 <= i < len(self.inputs) else None

    @property
    def present_inputs(self) -> list[Tensor]:
        """Inputs that are not optional placeholders."""
        return [t for t in self.inputs if t is not None]

    def set_input(self, i: int, tensor: Tensor | None) -> None:
        """Make input i read `tensor` (None: an absent optional input), keeping the readers of the
        old and the new tensor current when the op is in its graph's plan."""
        inputs = list(self.inputs)
        inputs[i] = tensor
        self.set_inputs(inputs)

    def set_inputs(self, tensors) -> None:
        """Replace the whole input list, keeping the tensors' readers current (see set_input)."""
        linked = self.graph.has_op(self)
        if linked:
            self.graph.detach(self, outputs=False)
        self.inputs = list(tensors)
        if linked:
            self.graph.attach(self, outputs=False)

    def set_output(self, i: int, tensor: Tensor) -> None:
        """Make output i write `tensor`, keeping both tensors' producer current when the op is in
        its graph's plan (a tensor another op produces is a GraphError)."""
        linked = self.graph.has_op(self)
        if linked:
            self.graph.detach(self, inputs=False)
        self.outputs[i] = tensor
        if linked:
            self.graph.attach(self, inputs=False)

    def __repr__(self) -> str:
        return f"Op#{self.index}({self.name} v{self.version})"
