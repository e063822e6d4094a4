"""Lint rules: stable codes over a check result and its analyses, ruff style.

Families, one module each: GPU0xx support (support.py), PRT1xx partitioning (partitioning.py),
PERF2xx cost (cost.py), IO3xx inputs and outputs (io.py), PREC4xx precision (precision.py; the
delegated-but-wrong forms the real accelerator was measured on: wrong_forms.py), HYG5xx model
hygiene (hygiene.py), DEV6xx device reports (device_reports.py: public reports of what one GPU
family's runtime mishandles, raised only for the families named). Each rule's docs live in its
module with the same headings: What it finds, Why it matters on the GPU, Example, How to fix, Fix
safety, References. Codes never change meaning; a retired code is never reused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")
DOC_HEADINGS = ("What it finds", "Why it matters on the GPU", "Example", "How to fix", "Fix safety", "References")


@dataclass(frozen=True)
class Rule:
    """A rule: stable code, short name, default severity, its documentation, the `gpucompat fix`
    rewrite that removes what it finds (None when there is none) and `run(result, analyses)`
    returning findings."""

    code: str
    name: str
    severity: str
    summary: str
    doc: str
    run: Callable = field(compare=False, repr=False)
    fix: str | None = None
    uses_analyses: bool = False  # needs gpucompat.analyses results, not only the check result

    @property
    def family(self) -> str:
        """The code's letters: GPU, PRT, PERF, IO, PREC, HYG, DEV."""
        return self.code.rstrip("0123456789")


@dataclass(frozen=True)
class Finding:
    """One finding: rule code, severity, message, and the (subgraph, op index) nodes involved."""

    code: str
    severity: str
    message: str
    nodes: tuple[tuple[int, int], ...] = ()


def all_rules() -> list[Rule]:
    """Every rule, by code."""
    from gpucompat.rules.lint import (
        cost,
        device_reports,
        hygiene,
        io,
        partitioning,
        precision,
        support,
        wrong_forms,
    )

    return sorted([*support.RULES, *partitioning.RULES, *cost.RULES, *io.RULES, *precision.RULES,
                   *wrong_forms.RULES, *hygiene.RULES, *device_reports.RULES], key=lambda r: r.code)


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (any case) or short name."""
    key = code_or_name.strip()
    for rule in all_rules():
        if rule.code == key.upper() or rule.name == key.lower():
            return rule
    return None


def unknown_codes(prefixes: tuple[str, ...]) -> list[str]:
    """The entries of a select or ignore list that start no rule's code: a typo there would
    silently hide every finding (or none), so the callers refuse them."""
    codes = [r.code for r in all_rules()]
    return [p for p in prefixes if not any(c.startswith(p) for c in codes)]


def selected(code: str, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> bool:
    """ruff-style selection: a code is on when some `select` prefix matches it (or `select` is
    empty) and no `ignore` prefix at least as long matches it (the more specific prefix wins)."""
    chosen = max((len(p) for p in select if code.startswith(p)), default=-1 if select else 0)
    ignored = max((len(p) for p in ignore if code.startswith(p)), default=-1)
    return chosen >= 0 and chosen > ignored


def run_all(result, analyses=None) -> list[Finding]:
    """Findings of every rule on a check result and its analyses (gpucompat.analyses.analyze),
    in rule-code order; without analyses only the rules that need none run."""
    out: list[Finding] = []
    for rule in all_rules():
        if analyses is not None or not rule.uses_analyses:
            out.extend(rule.run(result, analyses))
    return out
