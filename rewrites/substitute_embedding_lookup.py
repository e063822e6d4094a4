"""substitute-embedding-lookup: EMBEDDING_LOOKUP ==> GATHER along axis 0.

    y = EMBEDDING_LOOKUP(ids [N], table [V, D])     ==>   y = GATHER(table, ids, axis=0)

EMBEDDING_LOOKUP picks, for each id, the table's row (tflite/kernels/embedding_lookup.cc: the
output is [N, D...]); GATHER along axis 0 with the same 1-D INT32 ids picks the same rows in the
same order (gather.cc). LiteRT's GPU accelerator refuses EMBEDDING_LOOKUP when the table is fp16
weights behind a DEQUANTIZE ("Empty quantization params.": it reads the table as quantized; every
fp16 LLM export from litert-torch has one per signature) and takes GATHER with a runtime operand.
Only where the profile rejects the EMBEDDING_LOOKUP and takes the GATHER.

Safety: exact (rows are copied, never computed).
"""

from __future__ import annotations

from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, Tensor, dtypes
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.substitute import Replacement, Substitution


class SubstituteEmbeddingLookup(Substitution):
    name = "substitute-embedding-lookup"
    safety = "exact"
    summary = "EMBEDDING_LOOKUP becomes GATHER along axis 0"
    replaces = ("EMBEDDING_LOOKUP",)

    def data(self, op: Op) -> Tensor | None:
        return op.input(1)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        ids, table = op.input(0), op.input(1)
        if ids is None or ids.dtype != dtypes.INT32 or ids.rank != 1:
            return "the ids are not 1-D INT32"
        options = fb.GatherOptionsT()
        options.axis, options.batchDims = 0, 0
        r.emit("GATHER", [table, ids], op.outputs[0], options)
        return None
