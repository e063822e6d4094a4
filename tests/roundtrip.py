"""Round-trip helpers: a model saved by the IR must equal the original in content and outputs."""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference


def structure(model: ir.Model) -> dict:
    """Everything a lossless writer must keep, as comparable Python values."""
    graphs = []
    for g in model.graphs:
        graphs.append({
            "name": g.name,
            "inputs": [t.index for t in g.inputs],
            "outputs": [t.index for t in g.outputs],
            "tensors": [(t.name, t.shape, t.signature, t.dtype, t.is_variable,
                         bytes(np.asarray(t.buffer.data, dtype=np.uint8)) if t.is_constant else None,
                         _quant(t), t.fb.sparsity is not None) for t in g.tensors],
            "ops": [(op.name, op.version, [t.index if t else -1 for t in op.inputs],
                     [t.index for t in op.outputs], type(op.options).__name__, _options(op.options),
                     op.custom_options) for op in g.ops],
        })
    sigs = [(sd.signatureKey, sd.subgraphIndex, [(tm.name, tm.tensorIndex) for tm in sd.inputs or []],
             [(tm.name, tm.tensorIndex) for tm in sd.outputs or []]) for sd in model.fb.signatureDefs or []]
    return {"graphs": graphs, "metadata": model.metadata(), "signatures": sigs,
            "description": model.fb.description, "version": model.fb.version}


def _quant(t: ir.Tensor):
    q = t.quantization
    if q is None:
        return None
    return (tuple(np.asarray(q.scale if q.scale is not None else [], dtype=np.float64).tolist()),
            tuple(np.asarray(q.zeroPoint if q.zeroPoint is not None else [], dtype=np.int64).tolist()),
            q.quantizedDimension)


def _options(opts) -> dict:
    if opts is None:
        return {}
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(opts).items()}


def run(model_bytes: bytes, seed: int = 0) -> list[np.ndarray]:
    """Outputs of the reference interpreter on seeded inputs (the verification package's)."""
    it = reference_interpreter(model_bytes, "the model")
    return run_reference(it, seeded_feeds(ir.from_bytes(model_bytes).graphs[0], seed))
