"""Lint rules: stable codes over a check result and its analyses, ruff style.

One module per rule, in its family's package: rules/lint/<family>/<code>_<name>.py. Families:
GPU0xx delegation/ (ops the delegate does not take, failures that stop the whole delegation,
delegated forms the real accelerator computes wrongly or was never measured on), PRT1xx
partitioning/, PERF2xx cost/, IO3xx io/, PREC4xx precision/, HYG5xx hygiene/, DEV6xx
device_reports/ (public reports of what one GPU family's runtime mishandles, raised only for the
families named). A family's other modules are its shared helpers; calibrated_forms.py is shared by
GPU005, GPU007 and PREC408.

A rule module's docstring is the rule's documentation, printed by `gpucompat explain`, the SARIF
and HTML reports: its first paragraph is the one-line summary (`gpucompat rules`, the README's
table), then the headings What it finds, Why it matters on the GPU, Example, How to fix, Fix
safety, References. One function, decorated with `@rule(CODE, name=..., severity=...)`, returns
the findings.

The registry is discovered: the first all_rules() imports every `<code>_<name>` module of every
family package once, and lists the rules in code order, the order findings are reported in. Codes
never change meaning; a retired code is never reused."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

SEVERITIES = ("error", "warning", "info")
DOC_HEADINGS = ("What it finds", "Why it matters on the GPU", "Example", "How to fix", "Fix safety", "References")


@dataclass(frozen=True, kw_only=True)
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


_REGISTERED: dict[str, Rule] = {}


def rule(code: str, *, name: str, severity: str, fix: str | None = None, uses_analyses: bool = False):
    """Register the decorated function as the rule `code`: `run(result, analyses)` returning its
    findings. The summary and documentation are its module's docstring (first paragraph, then the
    headings), so a rule is read in one file."""

    def register(run: Callable) -> Callable:
        summary, _, doc = sys.modules[run.__module__].__doc__.partition("\n\n")
        found = Rule(code=code, name=name, severity=severity, summary=" ".join(summary.split()), doc=doc, run=run,
                     fix=fix, uses_analyses=uses_analyses)
        if _REGISTERED.setdefault(code, found) is not found:
            raise ValueError(f"rule code {code} is registered twice ({run.__module__})")
        return run

    return register


def is_rule_module(filename: str) -> bool:
    """True for a rule module's file name, `<code>_<name>.py` (prec403_fp16_overflow.py)."""
    code, _, rest = filename.partition("_")
    letters = code.rstrip("0123456789")
    return filename.endswith(".py") and bool(rest) and letters.isalpha() and len(code) - len(letters) == 3


def _discover() -> None:
    """Import every rule module of every family package (a folder of this package with an
    __init__.py): their @rule decorators register them."""
    for root in __path__:
        for family in sorted(os.listdir(root)):
            folder = os.path.join(root, family)
            if not os.path.isfile(os.path.join(folder, "__init__.py")):
                continue
            for filename in sorted(os.listdir(folder)):
                if is_rule_module(filename):
                    __import__(f"{__name__}.{family}.{filename[:-3]}")  # seen by -X importtime


_ALL: list[Rule] = []


def all_rules() -> list[Rule]:
    """Every rule, by code (discovered on the first call)."""
    if not _ALL:
        _discover()
        _ALL.extend(sorted(_REGISTERED.values(), key=lambda r: r.code))
    return list(_ALL)


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
