"""The rewrite engine: rewrites as pattern / check / rewrite classes, applied to a fixpoint.

A rewrite names its candidates (`candidates`: the anchor ops of its pattern), decides about one
candidate (`check`: a `Match` carrying what the rewrite needs, a string saying why it does not
apply, or None when the candidate is not what the pattern is about: not traced) and changes the
graph (`rewrite`). After every applied rewrite the graph is cleaned up (dead ops and tensors),
topologically sorted and checked against the IR invariants; the engine then starts again from
the highest-priority rewrite, so normalisers run before fusions. When a
whole pass over every rewrite and candidate applies nothing, the fixpoint is reached and that
last pass is the trace of everything that was not applied, with its reason.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from gpucompat.errors import GpucompatError, GraphError
from gpucompat.ir import Graph, Model, Op
from gpucompat.rules.support.context import Context
from gpucompat.rules.support.profile import Options, Profile
from gpucompat.rules.support.verdict import Verdict

Safety = Literal["exact", "equivalent", "signature"]
SAFETIES: tuple[str, ...] = ("exact", "equivalent", "signature")
MAX_STEPS = 10_000


@dataclass
class Match:
    """A candidate a rewrite accepted: the anchor op and every op the rewrite replaces."""

    anchor: Op
    ops: list[Op] = field(default_factory=list)


@dataclass(frozen=True)
class RewriteContext:
    """What rewrites may ask: the chosen profile and options (some rewrites only act on ops the
    profile rejects)."""

    profile: Profile
    options: Options

    def verdict(self, op: Op) -> Verdict:
        """The profile's verdict on `op` as it stands."""
        from gpucompat.rules.support.judging import judge_op

        return judge_op(op, self.profile, Context(self.options))

    def rejects(self, op: Op) -> bool:
        """True when the profile does not run `op` on the GPU."""
        return not self.verdict(op).ok


class Rewrite(ABC):
    """One graph rewrite. Subclasses set `name`, `safety`, `priority` (lower runs first) and a
    one-line `summary`, and implement the three methods."""

    name: ClassVar[str]
    safety: ClassVar[Safety]
    priority: ClassVar[int]
    summary: ClassVar[str]

    @abstractmethod
    def candidates(self, graph: Graph, ctx: RewriteContext) -> Iterable[Op]:
        """The ops where the pattern may start (cheap filter, usually by op type)."""

    @abstractmethod
    def check(self, op: Op, ctx: RewriteContext) -> Match | str | None:
        """A Match when the rewrite applies at `op`, else the reason it does not (None: the
        pattern does not match at all, which is not worth a trace entry)."""

    @abstractmethod
    def rewrite(self, match: Match, ctx: RewriteContext) -> None:
        """Change the graph; the engine cleans up and checks invariants afterwards."""


@dataclass(frozen=True)
class TraceEntry:
    """One rewrite x candidate: applied (with the ops it replaced) or not, and why."""

    rewrite: str
    safety: str
    candidate: str
    applied: bool
    reason: str | None = None
    nodes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # the layers or modules the replaced ops came from (gpucompat.attribution)


@dataclass
class Trace:
    """Every rewrite applied, in order, and every candidate left at the fixpoint with its reason."""

    applied: list[TraceEntry] = field(default_factory=list)
    not_applied: list[TraceEntry] = field(default_factory=list)

    def safeties(self) -> set[str]:
        """Safety classes of the applied rewrites."""
        return {e.safety for e in self.applied}


NAME_SHOWN = 72  # characters of an output's name a trace keeps: litert-torch's run to 300, the end tells


def describe(op: Op) -> str:
    """How a trace names an op: its node index, type (a composite's name with it) and first output
    ("op#4 CONV_2D 'conv1'"; a longer name keeps its end: "'…RMSNorm_final_norm;'")."""
    from gpucompat.ir.signatures import composite_name

    where = f"subgraph {op.graph.index} " if op.graph.index else ""
    name = op.outputs[0].name if op.outputs else None
    if name is not None and len(name) > NAME_SHOWN:
        name = "…" + name[-(NAME_SHOWN - 1):]
    out = f" {name!r}" if name is not None else ""
    kind = f" {composite_name(op)}" if op.name == "STABLEHLO_COMPOSITE" and composite_name(op) else ""
    return f"{where}op#{op.index} {op.name}{kind}{out}"


def anchor_key(op: Op) -> str:
    """How a refusal names a candidate across re-runs: its type, subgraph and first output (node
    indices move as other rewrites change the graph; tensor names do not)."""
    out = op.outputs[0].name if op.outputs else f"#{op.index}"
    return f"{op.graph.index}:{op.name}:{out}"


def apply(model: Model, rewrites: Sequence[Rewrite], ctx: RewriteContext,
          refused: dict[tuple[str, str], str] | None = None,
          after_step: Callable[[TraceEntry, tuple[str, str]], None] | None = None) -> Trace:
    """Apply `rewrites` to every subgraph of `model` until none applies; return the trace.
    `refused` maps (rewrite name, `anchor_key` of a candidate) to the reason a caller refuses it
    (traced, never applied); `after_step` is called with each applied step's entry and that key."""
    from gpucompat.attribution.attribute import Reader

    ordered = sorted(rewrites, key=lambda r: (r.priority, r.name))
    reader = None  # the names are read at the first step: a model nothing applies to pays nothing
    trace = Trace()
    for _ in range(MAX_STEPS):
        survey: list[TraceEntry] = []
        step = _first_applicable(model, ordered, ctx, survey, refused or {})
        if step is None:
            trace.not_applied = survey
            return trace
        rw, match = step
        replaced = match.ops or [match.anchor]
        reader = reader or Reader(model)
        paths = (reader.source(op).path for op in replaced)
        entry = TraceEntry(rw.name, rw.safety, describe(match.anchor), True,
                           nodes=tuple(describe(op) for op in replaced),
                           sources=tuple(dict.fromkeys(p for p in paths if p is not None)))
        graph, key = match.anchor.graph, (rw.name, anchor_key(match.anchor))
        rw.rewrite(match, ctx)
        stale = graph.stale_links()
        if stale:  # a rewrite edited op lists by hand instead of through the IR's editing methods
            raise GraphError(f"rewrite {rw.name} left the graph's links stale: {stale}")
        graph.cleanup()
        graph.toposort()
        graph.check()
        trace.applied.append(entry)
        if after_step is not None:
            after_step(entry, key)
    raise GpucompatError(f"rewrites did not settle after {MAX_STEPS} steps (last: {trace.applied[-1].rewrite})")


def _first_applicable(model: Model, ordered: Sequence[Rewrite], ctx: RewriteContext, survey: list[TraceEntry],
                      refused: dict[tuple[str, str], str]) -> tuple[Rewrite, Match] | None:
    """The first (rewrite, match) in priority then plan order; refusals go to `survey`."""
    for rw in ordered:
        for graph in model.graphs:
            for op in list(rw.candidates(graph, ctx)):
                result = rw.check(op, ctx)
                if isinstance(result, Match) and (rw.name, anchor_key(op)) in refused:
                    result = refused[rw.name, anchor_key(op)]
                if isinstance(result, Match):
                    return rw, result
                if result is not None:
                    survey.append(TraceEntry(rw.name, rw.safety, describe(op), False, result))
    return None
