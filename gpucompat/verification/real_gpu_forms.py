"""What a pass on the executor does not prove: the delegated ops LiteRT's real GPU accelerator is
not known to compute right.

The executor computes every op's math right, whatever its form; the real accelerator computes some
forms wrongly (rules/support/forms.py, measured in rules/support/calibration/). Under each profile the calibration
stands for, every op that profile delegates is looked up by its form: "wrong" (measured wrong),
"unmeasured" (never measured, or an op with no form key: unknown is not right) or right (not
listed). `fix` lists them for its output, marks those it introduced and refuses a rewrite that
introduces a known-wrong one, or one never measured unless the accelerator checks the output in
the same run; `verify` names them beside its executor verdict.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rules.lint.calibrated_forms import partition_reach
from gpucompat.rules.support import calibration, registry
from gpucompat.rules.support.forms import judged
from gpucompat.rules.support.profile import Options

NO_FORM = "no form recorded"


@dataclass(frozen=True)
class UnprovenOp:
    """One delegated op the accelerator is not known to compute right."""

    profile: str
    subgraph: int
    index: int
    op: str
    form: str | None  # the form key, None when the op type has none
    status: str  # "wrong" or "unmeasured"
    tensor: str  # its first output's name: what pairs an op of a fixed model with the original's
    introduced: bool | None = None  # fix only: not delegated in this form in the input model
    suspect: tuple[str, ...] = ()  # a wrong op: the graph outputs its GPU partition reaches
    measured_on: str = "LiteRT's GPU accelerator"  # what measured the table that judged it

    @property
    def where(self) -> str:
        """ "op#3 ADD [form]", with "subgraph N " in front outside the main subgraph."""
        sub = f"subgraph {self.subgraph} " if self.subgraph else ""
        return f"{sub}op#{self.index} {self.op} [{self.form or NO_FORM}]"

    def record(self) -> dict:
        """JSON form."""
        doc = {"profile": self.profile, "subgraph": self.subgraph, "index": self.index, "op": self.op,
               "form": self.form, "status": self.status, "tensor": self.tensor, "measured_on": self.measured_on}
        if self.introduced is not None:
            doc["introduced"] = self.introduced
        if self.suspect:
            doc["suspect_outputs"] = list(self.suspect)
        return doc

    @classmethod
    def from_record(cls, doc: dict) -> UnprovenOp:
        """The op back from its JSON form (`record`)."""
        fields = {k: v for k, v in doc.items() if k != "suspect_outputs"}
        return cls(**fields, suspect=tuple(doc.get("suspect_outputs", ())))


def measured_profiles() -> list[str]:
    """The profiles the calibration was measured for (the real accelerator they stand for)."""
    return list(calibration.load()["profiles"])


def unproven_ops(model: ir.Model, precision: str = "fp32", options: Options | None = None,
                 audited: tuple[tuple[str, Options], ...] = ()) -> list[UnprovenOp]:
    """Every op delegated under a measured profile (and under each of `audited`: (profile, options)
    pairs whose own table judges them, the GL delegate's) whose form the calibration records wrong
    at `precision`, or never measured (rules/support/forms.py, as check's GPU005 / GPU007 judge
    them). A DEQUANTIZE of a constant (fp16 weights) is not one: the delegate folds it into the
    constant its reader's form names."""
    out = []
    for name, opts in [*((n, options or Options()) for n in measured_profiles()), *audited]:
        profile = registry.get(name)
        table = calibration.for_profile(profile, opts.backend)
        result = check_model(model, profile, opts)
        if result.failure or table is None:  # nothing is delegated, or nothing judges it
            continue
        for o in result.ops:
            op = model.graphs[o.subgraph].ops[o.index]
            if o.placement != "gpu" or not judged(op):
                continue
            key = table.key(op)
            status = table.status(key, precision)
            if status != "right":
                reach = partition_reach(result, model, o) if status == "wrong" else None
                suspect = () if reach is None else tuple(t.name for t in reach[1])
                out.append(UnprovenOp(name, o.subgraph, o.index, o.op, key, status,
                                      op.outputs[0].name if op.outputs else "", suspect=suspect,
                                      measured_on=table.measured_on))
    return out


def audited_with(profile, options: Options) -> tuple[tuple[str, Options], ...]:
    """The (profile, options) a fix under `profile` is audited with beyond the measured profiles:
    itself when the GL delegate's table judges it (gl-delegate, gpu-current on gl)."""
    return ((profile.name, options),) if calibration.gl_measured(profile, options.backend) else ()


def identity(u: UnprovenOp) -> tuple:
    """What pairs an op of a rewritten model with the original's: profile, type, form, status and
    output tensor (node indices change under rewrites)."""
    return u.profile, u.op, u.form, u.status, u.tensor


def mark_introduced(before: list[UnprovenOp], after: list[UnprovenOp]) -> list[UnprovenOp]:
    """`after` (a fixed model's list) with each op marked introduced unless the input model
    (`before`) delegated an op of the same type, form and status writing the same tensor."""
    seen = {identity(u) for u in before}
    return [replace(u, introduced=identity(u) not in seen) for u in after]


def introduced_unsafe(before: list[UnprovenOp], after: list[UnprovenOp], unmeasured: bool) -> list[UnprovenOp]:
    """The ops of `after` (a rewritten model's list) a rewrite must not bring in: the known-wrong
    ones the input (`before`) did not have, and with `unmeasured` those in a form never measured
    that the input delegated nowhere (an unknown the input already had is no new risk)."""
    known = {(u.profile, u.op, u.form) for u in before if u.status == "unmeasured"}
    return [u for u in mark_introduced(before, after) if u.introduced and (
        u.status == "wrong" or (unmeasured and (u.profile, u.op, u.form) not in known))]


def summary(ops: list[UnprovenOp], limit: int = 6) -> str:
    """One line for a terminal: "1 op is known wrong on the real GPU: op#0 SUB [...]; 5 ops were
    never measured there: CONV_2D [no form recorded] x4, ...". Known-wrong ops one by one, never
    measured ones grouped by type and form; "" when there is nothing to say."""
    wrong = [u for u in ops if u.status == "wrong"]
    unmeasured = Counter(f"{u.op} [{u.form or NO_FORM}]" + (" (introduced by the fix)" if u.introduced else "")
                         for u in ops if u.status == "unmeasured")
    parts = []
    if wrong:
        shown = ", ".join(u.where + (" (introduced by the fix)" if u.introduced else "") for u in wrong[:limit])
        more = f", and {len(wrong) - limit} more" if len(wrong) > limit else ""
        suspect = list(dict.fromkeys(name for u in wrong for name in u.suspect))
        more_out = f" and {len(suspect) - limit} more" if len(suspect) > limit else ""
        spoiled = (f"; the outputs their GPU partitions reach are suspect there: "
                   f"{', '.join(repr(n) for n in suspect[:limit])}{more_out}" if suspect else "")
        parts.append(f"{_count(len(wrong))} known wrong on the real GPU: {shown}{more}{spoiled}")
    if unmeasured:
        groups = [f"{what} x{n}" if n > 1 else what for what, n in unmeasured.most_common(limit)]
        rest = len(unmeasured) - limit
        more = f", and {rest} more form{'s' if rest > 1 else ''}" if rest > 0 else ""
        parts.append(f"{_count(sum(unmeasured.values()))} never measured on the real GPU: {', '.join(groups)}{more}")
    return "; ".join(parts)


def _count(n: int) -> str:
    return f"{n} op is" if n == 1 else f"{n} ops are"
