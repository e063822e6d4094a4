"""Model-level buffer housekeeping after rewrites."""

from __future__ import annotations

import numpy as np

from gpucompat.errors import ModelError
from gpucompat.ir.model import Model


def check_metadata_references(model: Model) -> None:
    """Refuse metadata that names a buffer past the list (call before rewriting: compact_buffers
    cannot renumber such a reference, and keeping its index would make it name whichever buffer
    lands there after compaction)."""
    n = len(model.buffers)
    rec = model.fb
    refs = [(f"metadata entry {i}", m.buffer) for i, m in enumerate(rec.metadata or [])]
    refs += [(f"metadata buffer list item {i}", int(b))
             for i, b in enumerate(rec.metadataBuffer if rec.metadataBuffer is not None else [])]
    for what, index in refs:
        if not 0 <= index < n:
            raise ModelError(model.path or "model", f"{what} refers to buffer {index}, but the model has {n} buffers")


def compact_buffers(model: Model) -> int:
    """Drop buffers no tensor, metadata entry or metadata-buffer index refers to (buffer 0, the
    empty sentinel, always stays) and renumber the references, which check_metadata_references has
    found in range. Returns the bytes freed."""
    rec = model.fb
    buffers = model.buffers
    used = {0}
    for g in model.graphs:
        used.update(t.fb.buffer for t in g.tensors)
    used.update(m.buffer for m in rec.metadata or [])
    used.update(int(i) for i in (rec.metadataBuffer if rec.metadataBuffer is not None else []))
    keep = [i for i in range(len(buffers)) if i in used]
    if len(keep) == len(buffers):
        return 0
    freed = sum(len(b.data) for i, b in enumerate(buffers) if i not in used and b.data is not None)
    new_index = {old: new for new, old in enumerate(keep)}
    rec.buffers = [buffers[i] for i in keep]
    for g in model.graphs:
        for t in g.tensors:
            t.fb.buffer = new_index[t.fb.buffer]
    for m in rec.metadata or []:
        m.buffer = new_index[m.buffer]
    if rec.metadataBuffer is not None:
        rec.metadataBuffer = np.asarray([new_index[int(i)] for i in rec.metadataBuffer], dtype=np.int32)
    return freed
