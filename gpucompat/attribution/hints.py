"""Changes at the source: for an op the GPU rejects because of how framework code was written,
what to write instead, per framework.

Every hint here is proven by the test it names (tests/test_source_hints.py): the "before" and
"after" code exported by the real converter, the after version taken whole by LiteRT's GPU
accelerator with the same outputs. A hint without such a test is not written here."""

from __future__ import annotations

from dataclasses import dataclass

from gpucompat.ir import dtypes


@dataclass(frozen=True)
class SourceHint:
    """A source-level change: the op and framework it is for, what the code did and what to write
    instead, and the test that proves it."""

    key: str
    op: str
    frameworks: tuple[str, ...]
    before: str
    after: str
    proof: str  # a test in tests/test_source_hints.py
    reason: str = ""  # what the rejection's reason says when the hint applies ("" any reason)

    def record(self) -> dict:
        """The JSON form (docs/json-schema.md `hints`)."""
        return {"key": self.key, "before": self.before, "after": self.after}

    @property
    def line(self) -> str:
        """The hint in one line."""
        return f"{self.before}: write {self.after}"


HINTS = (
    SourceHint("keras-gather-nd-fixed", "GATHER_ND", ("keras", "tensorflow"),
               "tf.gather_nd with fixed indices becomes GATHER_ND, which no GPU delegate runs",
               "slices and tf.concat (tf.concat([x[:, 3:4], x[:, 9:10]], axis=1)): STRIDED_SLICE and "
               "CONCATENATION, both on the GPU",
               "test_keras_gather_nd_fixed"),
    SourceHint("torch-gather-fixed", "GATHER_ND", ("pytorch",),
               "torch.gather or advanced indexing with a fixed index becomes GATHER_ND, which no GPU delegate runs",
               "slices and torch.cat (torch.cat([x[:, 3:4], x[:, 9:10]], 1)): SLICE and CONCATENATION, "
               "both on the GPU",
               "test_torch_gather_fixed"),
    SourceHint("keras-argmax-int64", "ARG_MAX", ("keras", "tensorflow"),
               "tf.argmax returns int64 by default, a type the GPU does not take",
               "tf.argmax(x, axis, output_type=tf.int32)",
               "test_keras_argmax_int32", reason="INT64"),
)


RULE = "GPU001"  # the rule whose findings (rejected ops) the hints are for


def markdown() -> str:
    """The hints as `gpucompat explain GPU001` lists them: per framework, op, before and after."""
    lines = ["## At the source", "",
             "Changes to the model code that keep the op on the GPU, each proven on LiteRT's GPU accelerator "
             "(the code before and after exported by the real converter; the after version taken whole, same "
             "outputs). `check` shows the one that applies beside the rejected op.", ""]
    for h in HINTS:
        lines.append(f"- {'/'.join(h.frameworks)}, `{h.op}`: {h.before}; write {h.after}.")
    return "\n".join(lines)


def hints_for(op, framework: str | None, reason: str) -> list[SourceHint]:
    """The hints that apply to `op` (an IR op the delegate rejects for `reason`) written in
    `framework`."""
    return [h for h in HINTS if h.op == op.name and framework in h.frameworks and h.reason in reason
            and _applies(h, op)]


def _applies(hint: SourceHint, op) -> bool:
    if hint.op == "GATHER_ND":
        return len(op.inputs) > 1 and _from_constants(op.inputs[1], {})
    if hint.op == "ARG_MAX":
        return bool(op.outputs) and op.outputs[0].dtype == dtypes.INT64
    return True


def _from_constants(tensor, seen: dict) -> bool:
    """True when the tensor is a constant or computed from constants only (litert-torch computes
    a fixed gather's indices with int ops from a constant buffer)."""
    if tensor is None:
        return True
    key = id(tensor)
    if key not in seen:
        seen[key] = True  # a loop back to itself adds nothing
        producer = tensor.producer
        if producer is None:
            seen[key] = tensor.is_constant
        else:
            seen[key] = all(_from_constants(t, seen) for t in producer.inputs)
    return seen[key]
