"""substitute-batch-matmul: a BATCH_MATMUL whose left operand is a constant matrix becomes a
FULLY_CONNECTED between two transposes.

    C[..., M, N] = BATCH_MATMUL(A[M, K] constant, X[..., K, N])
    ==>  C = TRANSPOSE(FULLY_CONNECTED(TRANSPOSE(X) [..., N, K], weights A, keep_num_dims), swap last two)

since C^T = X^T A^T, and FULLY_CONNECTED computes in x weights^T with weights [M, K]. adj_x
transposes A first (weights A^T); adj_y means X is already [..., N, K] (no first TRANSPOSE).
LiteRT's GPU accelerator refuses a constant left operand (observed with ai-edge-litert 2.3.0: "Not
supported batched mat mul case: non-constant tensor"; on Android the whole compile fails,
edge-compat's gpu_mldrift 2.2.0 matrix) and takes FULLY_CONNECTED with constant weights. A
constant with a batch other than 1 is not one matrix and is refused.

The FULLY_CONNECTED is written at version 5, the first with keep_num_dims
(tflite/tools/versioning/op_version.cc).

Safety: equivalent (the same products, summed by another kernel).
"""

from __future__ import annotations

import dataclasses

from gpucompat.ir import Op, Tensor, dtypes
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.substitute import Replacement, Substitution

FC_KEEP_NUM_DIMS_VERSION = 5


class SubstituteBatchMatmul(Substitution):
    name = "substitute-batch-matmul"
    safety = "equivalent"
    summary = "BATCH_MATMUL with a constant left operand becomes TRANSPOSE, FULLY_CONNECTED, TRANSPOSE"
    replaces = ("BATCH_MATMUL",)

    def data(self, op: Op) -> Tensor | None:
        return op.input(1)

    def plan(self, op: Op, r: Replacement, ctx: RewriteContext) -> str | None:
        from ai_edge_litert import schema_py_generated as fb

        a, x, out = op.input(0), op.input(1), op.outputs[0]
        value = a.data() if a is not None else None
        if value is None or a.dtype != dtypes.FLOAT32:
            return "the left operand is not a float32 constant"
        if a.rank < 2 or any(d != 1 for d in a.shape[:-2]):
            return f"the constant left operand {list(a.shape)} is not one matrix (batch other than 1)"
        if out.rank != x.rank:
            return "the constant has more dimensions than the runtime operand"
        opts = op.options
        adj_x, adj_y = (bool(opts.adjX), bool(opts.adjY)) if opts is not None else (False, False)
        weights = value.reshape(a.shape[-2:])
        weights = weights.T if adj_x else weights  # [M, K]
        swap = list(range(x.rank))
        swap[-2], swap[-1] = swap[-1], swap[-2]
        xt = x if adj_y else r.emit("TRANSPOSE", [x, r.const("perm", swap)], [x.shape[i] for i in swap],
                                    fb.TransposeOptionsT())
        fc_opts = fb.FullyConnectedOptionsT()
        fc_opts.keepNumDims = True
        y = r.emit("FULLY_CONNECTED", [xt, r.const("weights", weights.copy()), None],
                   [out.shape[i] for i in swap], fc_opts)
        fc = r.new[-1]
        fc.code = dataclasses.replace(fc.code, version=FC_KEEP_NUM_DIMS_VERSION)
        r.emit("TRANSPOSE", [y, r.const("perm", swap)], out, fb.TransposeOptionsT())
        return None
