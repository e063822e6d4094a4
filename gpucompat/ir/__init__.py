"""The model IR: a thin, lossless layer over the TFLite flatbuffer object API."""

from gpucompat.ir.graph import Graph
from gpucompat.ir.model import Model
from gpucompat.ir.nodes import Op, OpCode, Tensor
from gpucompat.ir.reader import from_bytes, load
from gpucompat.ir.writer import save, to_bytes

__all__ = ["Graph", "Model", "Op", "OpCode", "Tensor", "from_bytes", "load", "save", "to_bytes"]
