"""The model: subgraphs, operator codes, buffers, metadata and signature defs."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gpucompat.ir.graph import Graph
from gpucompat.ir.nodes import OpCode, Tensor


class Model:
    """A whole .tflite model. `fb` is the ModelT record: every field not modelled here (metadata,
    description, signature defs' names, ...) lives there and is written back unchanged."""

    def __init__(self, fb, path: str | None = None):
        self.fb = fb
        self.path = path
        self.graphs: list[Graph] = []
        # What the buffers' data are views of (the file's map, or the bytes read from), and
        # whether the file kept them after the flatbuffer (offset/size): the writer copies
        # untouched buffers from the source and keeps that layout.
        self.source = None
        self.offset_buffers = False
        # (TensorMapT record, Tensor) pairs: signature defs refer to tensors by index, and the
        # writer re-numbers them from these links.
        self.signature_links: list[tuple[object, Tensor]] = []
        # (tensor, its blockwise quantization details, field, tensor named there): INT4 weights name
        # their scales by index in the same subgraph, and the writer re-numbers them from these links.
        self.quantization_links: list[tuple[Tensor, object, str, Tensor]] = []

    @property
    def buffers(self) -> list:
        """The model's BufferT records (index 0 is the empty sentinel)."""
        return self.fb.buffers or []

    def buffer(self, index: int):
        """BufferT at `index`, None when out of range."""
        b = self.fb.buffers
        return b[index] if b is not None and 0 <= index < len(b) else None

    def add_buffer(self, data: np.ndarray | bytes) -> int:
        """Append a buffer holding `data` (raw bytes of a constant) and return its index."""
        from ai_edge_litert import schema_py_generated as fb

        buf = fb.BufferT()
        buf.data = np.frombuffer(bytes(np.ascontiguousarray(data).tobytes()
                                       if isinstance(data, np.ndarray) else data), dtype=np.uint8)
        if self.fb.buffers is None:
            self.fb.buffers = [fb.BufferT()]
        self.fb.buffers.append(buf)
        return len(self.fb.buffers) - 1

    def ops(self) -> Iterator:
        """Every op of every subgraph, in subgraph then plan order."""
        for g in self.graphs:
            yield from g.ops

    @property
    def op_count(self) -> int:
        """Total number of ops over all subgraphs."""
        return sum(len(g.ops) for g in self.graphs)

    def quantization_targets(self, t: Tensor) -> list[tuple[str, Tensor]]:
        """(field, tensor) of every tensor `t`'s blockwise quantization names (its scales)."""
        return [(f, target) for owner, _, f, target in self.quantization_links if owner is t]

    def link_quantization(self, t: Tensor, targets: list[tuple[str, Tensor]]) -> None:
        """Give `t` (a copy of a blockwise-quantized tensor, sharing nothing with it) its own
        quantization record, naming `targets` ((field, tensor) in `t`'s subgraph)."""
        import copy

        t.fb.quantization = copy.deepcopy(t.fb.quantization)
        self.quantization_links += [(t, t.fb.quantization.details, f, target) for f, target in targets]

    def signature_tensors(self) -> list[Tensor]:
        """Tensors named by signature defs (kept alive by cleanup)."""
        return [t for _, t in self.signature_links]

    def opcodes(self) -> list[OpCode]:
        """Distinct op codes in use, in first-use order."""
        seen: dict[OpCode, None] = {}
        for op in self.ops():
            seen.setdefault(op.code, None)
        return list(seen)

    def metadata(self) -> dict[str, bytes]:
        """Metadata entries by name, with their buffer bytes."""
        out = {}
        for m in self.fb.metadata or []:
            name = m.name.decode("utf-8", "replace") if isinstance(m.name, bytes) else (m.name or "")
            buf = self.buffer(m.buffer)
            out[name] = bytes(np.asarray(buf.data, dtype=np.uint8)) if buf is not None and buf.data is not None else b""
        return out

    def __repr__(self) -> str:
        return f"Model({self.path!r}, {len(self.graphs)} subgraphs, {self.op_count} ops)"
