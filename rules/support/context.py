"""What a predicate may ask besides the op: the app's options and which tensors the delegate
sees as constants (the FP16 helper makes fp16-DEQUANTIZE outputs count as their constant)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpucompat.ir import Tensor
from gpucompat.rules.support.profile import Options


@dataclass(frozen=True)
class Context:
    """Options plus the constant view of tensors used while judging one op."""

    options: Options
    folded: dict[int, Tensor] = field(default_factory=dict)
    # is_const answers by tensor id, shared by the ops of one judged graph (each tensor is asked
    # about several times per op, by every op that reads it)
    known: dict[int, bool] = field(default_factory=dict)
    # at_prepare's answers by tensor id, shared alike
    prepared: dict[int, bool] = field(default_factory=dict)
    # the last op's (runtime, constant) inputs: the checks of one op run in turn, several asking
    last_split: list = field(default_factory=lambda: [None, None], repr=False, compare=False)

    def source(self, t: Tensor) -> Tensor:
        """The tensor the delegate reads in place of `t` (the FP16 constant for a folded one)."""
        return self.folded.get(id(t), t)

    def is_const(self, t: Tensor | None) -> bool:
        """True when the delegate sees `t` as a constant."""
        if t is None:
            return False
        key = id(t)
        answer = self.known.get(key)
        if answer is None:
            answer = self.known[key] = t.is_constant or key in self.folded
        return answer

    def at_prepare(self, t: Tensor | None, ops: frozenset[str]) -> bool:
        """True when the interpreter computes `t` while it prepares the model, not at run time: a
        constant, the SHAPE of a tensor of static shape, or what an op of `ops` makes of such
        tensors only (TFLite's kernels evaluate those at prepare and keep the result)."""
        if t is None or self.is_const(t):
            return True
        key = id(t)
        answer = self.prepared.get(key)
        if answer is None:
            self.prepared[key] = False  # a cycle reads as run time
            producer = t.producer
            if producer is None:
                answer = False
            elif producer.name == "SHAPE":
                source = producer.input(0)
                answer = source is not None and all(d > 0 for d in source.shape)
            else:
                answer = producer.name in ops and all(self.at_prepare(x, ops) for x in producer.inputs)
            self.prepared[key] = answer
        return answer

    def split_inputs(self, op) -> tuple[list[Tensor], list[Tensor]]:
        """The inputs of `op` the delegate reads at run time and those it sees as constants, in
        input order, optional (absent) ones left out; asked by several checks of the same op in
        turn, worked out once."""
        last = self.last_split
        if last[0] is not op:
            runtime: list[Tensor] = []
            const: list[Tensor] = []
            for t in op.inputs:
                if t is not None:
                    (const if self.is_const(t) else runtime).append(t)
            last[0], last[1] = op, (runtime, const)
        return last[1]
