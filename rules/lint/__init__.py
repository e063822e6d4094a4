"""Lint rules: stable codes over a check result. One module per family; each rule's docs live in
its module with the same headings (What it finds, Why it matters on the GPU, Example, How to fix,
Fix safety, References)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Rule:
    """A rule: stable code, short name, default severity and its documentation."""

    code: str
    name: str
    severity: str
    summary: str
    doc: str
    run: Callable = field(compare=False, repr=False)


@dataclass(frozen=True)
class Finding:
    """One finding: rule code, severity, message, and the (subgraph, op index) nodes involved."""

    code: str
    severity: str
    message: str
    nodes: tuple[tuple[int, int], ...] = ()


def all_rules() -> list[Rule]:
    """Every rule, by code."""
    from gpucompat.rules.lint import partitioning, support

    return sorted([*support.RULES, *partitioning.RULES], key=lambda r: r.code)


def run_all(result) -> list[Finding]:
    """Findings of every rule on a check result, in rule-code order."""
    out: list[Finding] = []
    for rule in all_rules():
        out.extend(rule.run(result))
    return out
