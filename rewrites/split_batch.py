"""split-batch: a binary op broadcasting a runtime operand across a constant's batch runs once
per batch slice of the constant, and the slices are concatenated.

    y[2,4,8,16] = ADD(x[8,16], c[2,4,8,16])
        ==>  x4 = RESHAPE(x, [1,1,8,16]);  y_i = ADD(x4, c[i:i+1]) for i = 0, 1;
             y = CONCATENATION(y_0, y_1, axis 0)

LiteRT's GPU accelerator computes a binary op wrongly when its runtime operand is broadcast along
the batch of a constant of batch > 1, whatever the runtime operand's rank: [1,1,1,1] against a
constant [2,4,8,16] is as wrong as [8,16] is (rules/support/calibration/, GPU005), so explicit-rank-4,
which leaves the output's rank 4 alone, cannot help. Against a constant of batch 1 the same
broadcast is right. The constant is cut into its batch slices here, one op per slice (at most
MAX_SLICES), each in a form the calibration records right, and a CONCATENATION along the batch
(recorded right) writes the op's own output tensor, so names, outputs and signature defs stay.

Safety: exact (each output element is the same op on the same two values).
"""

from __future__ import annotations

from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op
from gpucompat.rewrites.calibrated import CalibratedRewrite, at_shape, not_measured_right, rank4
from gpucompat.rewrites.substitute import Replacement
from gpucompat.rules.support.forms import BINARY

MAX_SLICES = 16  # a larger batch would be that many ops: left to the finding


class SplitBatch(CalibratedRewrite):
    name = "split-batch"
    safety = "exact"
    priority = 36  # after explicit-rank-4, which leaves a rank-4 output to this one
    summary = "a binary op broadcasting a runtime operand across a constant's batch runs once per batch slice"
    op_types = BINARY
    what = "per-slice"

    def plan(self, op: Op, r: Replacement) -> Op | str | None:
        """RESHAPE the runtime operand to rank 4, the op once per batch slice of the constant,
        CONCATENATION of the slices into the op's output."""
        out = op.outputs[0]
        operands = op.present_inputs
        if len(operands) != 2 or len(op.inputs) != 2 or out.rank != 4 or out.is_dynamic:
            return None
        held = [t.is_constant and t.data() is not None for t in operands]
        if held.count(True) != 1:
            return None
        c, x = (operands[0], operands[1]) if held[0] else (operands[1], operands[0])
        batch = out.shape[0]
        if c.shape != out.shape or batch < 2 or x.is_dynamic or x.rank > 4 or (x.rank == 4 and x.shape[0] != 1):
            return None
        if batch > MAX_SLICES:
            return f"a batch of {batch} would take {batch} ops (at most {MAX_SLICES})"
        x4 = r.reshape(x, rank4(x.shape)) if x.rank < 4 else x
        value = c.data()
        pieces = []
        for i in range(batch):
            part = r.const(f"batch{i}", value[i:i + 1])
            pieces.append(at_shape(op, r, [part, x4] if held[0] else [x4, part], (1, *out.shape[1:]), f"batch{i}"))
        options = fb.ConcatenationOptionsT()
        options.axis = 0
        r.emit("CONCATENATION", [p.outputs[0] for p in pieces], out, options)
        # every slice's op has the same form: the last is the one the calibration is asked about
        return not_measured_right(r.new[-1], "concatenation", r.ctx) or pieces[-1]
