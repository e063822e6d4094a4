"""Control flow in hybrid execution: WHILE and IF run here, in Python, over runners of the
subgraphs they call (kernels/while.cc, if.cc). The delegate never takes a WHILE or IF, but it
delegates each called subgraph on its own (tflite/core/interpreter.cc
ModifyGraphWithDelegateImpl applies the delegate to every subgraph), so each called subgraph runs
hybrid with its own placements."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError

if TYPE_CHECKING:
    from gpucompat.verification.hybrid import HybridRunner

MAX_TURNS = 100_000  # a verification run must end: a WHILE still going after this many turns is an error

# Control-flow ops and the option fields naming the subgraphs they call.
CONTROL_FLOW = {"WHILE": ("condSubgraphIndex", "bodySubgraphIndex"), "IF": ("thenSubgraphIndex", "elseSubgraphIndex")}


class ControlSegment:
    """A run of WHILE and IF ops, each over runners of the subgraphs it calls (shared through
    `runner.called`)."""

    def __init__(self, ops: list[ir.Op], runner: HybridRunner):
        self.ops = ops
        self.runner = runner
        self.recorded: dict[int, np.ndarray] = {}
        for op in ops:
            for field_name in CONTROL_FLOW[op.name]:
                runner.called(getattr(op.options, field_name))

    def run(self, values: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Run the control-flow ops in order; their outputs by tensor id."""
        produced: dict[int, np.ndarray] = {}
        for op in self.ops:
            args = [t.data() if t.is_constant else produced.get(id(t), values.get(id(t))) for t in op.inputs]
            if op.name == "IF":
                o = op.options
                branch = o.thenSubgraphIndex if bool(np.asarray(args[0]).ravel()[0]) else o.elseSubgraphIndex
                args = self._call(branch, args[1:])
            else:
                turns = 0
                while bool(np.asarray(self._call(op.options.condSubgraphIndex, args)[0]).ravel()[0]):
                    args = self._call(op.options.bodySubgraphIndex, args)
                    turns += 1
                    if turns > MAX_TURNS:
                        raise GpucompatError(f"op#{op.index} WHILE did not stop after {MAX_TURNS} turns")
            produced.update({id(t): np.asarray(v) for t, v in zip(op.outputs, args)})
        return produced

    def _call(self, index: int, args: list[np.ndarray]) -> list[np.ndarray]:
        callee = self.runner.called(index)
        out = callee.run(args)
        self.recorded.update(callee.recorded)
        return out
