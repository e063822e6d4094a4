"""flatten-fc-rows: a FULLY_CONNECTED that flattens a batch-1 input into rows reads them as rows.

    y[T, U] = FULLY_CONNECTED(x[1, T, C], w[U, C], b, keep_num_dims=False)
        ==>  x2 = RESHAPE(x, [T, C]);  y = FULLY_CONNECTED(x2, w, b)

A FULLY_CONNECTED without keep_num_dims flattens its input into rows of its last axis
(tflite/kernels/fully_connected.cc: [1, T, C] -> [T, C]) before the product. LiteRT's GPU
accelerator makes those rows a batch axis: with int8 weights and more than 16 rows its kernel
cannot be built and the whole compile fails (rules/support/profiles/litert_mldrift.py
_int8_weights_flattening: every dynamic-range LLM export's prefill of 32), and where it builds, a
flattening of more than one row from a batch-1 input is computed wrongly (the numerics table,
GPU005). The same product on the input already flat, [T, C], builds and is right: the RESHAPE
moves no element, and the op writes its own output tensor, so names and outputs stay. Only where
the profile rejects the op or the calibration records its form wrong, and only when the new form
is recorded right and taken.

Safety: exact (the same dot products of the same values).
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op
from gpucompat.rewrites.calibrated import CalibratedRewrite, recorded_wrong
from gpucompat.rewrites.engine import RewriteContext
from gpucompat.rewrites.substitute import Replacement


class FlattenFcRows(CalibratedRewrite):
    name = "flatten-fc-rows"
    safety = "exact"
    priority = 35
    summary = "a FULLY_CONNECTED flattening a batch-1 input of rank 3 or 4 reads it flattened to rows"
    op_types = ("FULLY_CONNECTED",)
    what = "rows"

    def wanted(self, op: Op, ctx: RewriteContext) -> bool:
        """A flattening of a batch-1 input the profile rejects, or whose form is recorded wrong."""
        x, out = op.input(0), op.outputs[0]
        if (x is None or x.rank < 3 or x.shape[0] != 1 or x.is_dynamic or out.is_dynamic or op.options is None
                or op.options.keepNumDims or out.rank != 2):
            return False
        return ctx.rejects(op) or recorded_wrong(op, ctx)

    def plan(self, op: Op, r: Replacement) -> Op:
        """The op on its input RESHAPEd to [rows, C], writing its own output."""
        x = op.input(0)
        flat = r.reshape(x, (int(np.prod(x.shape[:-1])), x.shape[-1]))
        new = Op(op.fb, op.graph, op.code, [flat, *op.inputs[1:]], list(op.outputs), list(op.intermediates))
        r.new.append(new)
        return new
