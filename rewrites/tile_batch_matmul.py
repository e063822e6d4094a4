"""tile-batch-matmul: a BATCH_MATMUL broadcasting one operand's batch reads it tiled to the batch.

    y[B, M, N] = BATCH_MATMUL(x[B, M, K], w[K, N])
        ==>  w3 = RESHAPE(w, [1, K, N]);  wt = TILE(w3, [B, 1, 1]);  y = BATCH_MATMUL(x, wt)

BATCH_MATMUL broadcasts an operand of fewer batch dimensions (or of batch 1) over the other's
batch (tflite/kernels/batch_matmul.cc). LiteRT's GPU accelerator computes that broadcast wrongly
(cosine 0.1: [4, 1, 64] x [64, 64], [4, 1, 64] x [1, 64, 64] and their rank-4 forms; the decode
attention of a model with one key/value head, litert-torch's Gemma 3), and the same product with
both operands at the full batch right. TILE repeats the operand B times along the batch, which is
what the broadcast reads. Only where the calibration records the op's form wrong and the tiled
form right, under the profiles it was measured for.

Safety: exact (the same dot products of the same values).
"""

from __future__ import annotations

import copy

from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, build
from gpucompat.rewrites.calibrated import CalibratedRewrite
from gpucompat.rewrites.substitute import Replacement


class TileBatchMatmul(CalibratedRewrite):
    name = "tile-batch-matmul"
    safety = "exact"
    priority = 35
    summary = "a BATCH_MATMUL broadcasting an operand's batch reads that operand tiled to the batch"
    op_types = ("BATCH_MATMUL",)
    what = "tiled"

    def plan(self, op: Op, r: Replacement) -> Op | str | None:
        """The operand of smaller batch RESHAPEd to the other's rank and TILEd to its batch."""
        a, b, out = op.input(0), op.input(1), op.outputs[0]
        if a is None or b is None or any(t.is_dynamic for t in (a, b, out)):
            return None
        batch = out.shape[:-2]
        inputs = []
        for t in (a, b):
            own = (1,) * (len(batch) - (t.rank - 2)) + t.shape[:-2]
            if own == batch:
                inputs.append(t)
                continue
            if any(d not in (1, n) for d, n in zip(own, batch)):
                return f"{t.name!r} {list(t.shape)} does not broadcast to the batch {list(batch)}"
            full_rank = own + t.shape[-2:]
            src = t if t.rank == len(full_rank) else r.reshape(t, full_rank)
            multiples = [n // d for d, n in zip(own, batch)] + [1, 1]
            inputs.append(r.emit("TILE", [src, r.const("multiples", multiples)], batch + t.shape[-2:],
                                 fb.TileOptionsT(), t.dtype))
        if inputs == [a, b]:
            return None
        new = build.operator(op.graph, op.name, inputs, [out], copy.copy(op.options), op.version)
        r.new.append(new)
        return new
