"""What got worse or better between two versions of a model, compared on their JSON records
(gpucompat.output.records) under the same profile and options.

A regression is what costs the app its GPU: ops moving to the CPU, a delegated partition lost
or split, delegation starting to fail, or a new finding at or above the chosen severity. Cost
measures (padding waste, bytes moved) are printed; they fail only past a relative increase the
user sets, since a fix that moves ops onto the GPU may well move more bytes."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from gpucompat.rules.lint import SEVERITIES


@dataclass
class Change:
    """One measure that moved: `worse` says in which direction, `regression` whether that fails."""

    measure: str
    old: object
    new: object
    worse: bool
    regression: bool = False

    def describe(self) -> str:
        """"share of ops on the GPU: 100% -> 60% (worse)"."""
        fmt = str
        if isinstance(self.old, float) or isinstance(self.new, float):
            digits = 0 if f"{self.old:.0%}" != f"{self.new:.0%}" else 2  # "1% -> 1%" says nothing
            fmt = lambda v: f"{v:.{digits}%}"  # noqa: E731
        mark = "regression" if self.regression else ("worse" if self.worse else "better")
        return f"{self.measure}: {fmt(self.old)} -> {fmt(self.new)} ({mark})"


def _more(a, b) -> bool:
    return b > a


def _split_or_lost(a, b) -> bool:
    """More delegated kernels (the GPU part split), or none left (the partition lost)."""
    return b > a or (b == 0 < a)


# (label, how to read it from a record, is the new value worse, is a worse value a regression):
# placement and partitioning. A lower GPU share alone (ops removed, none moved) is no regression.
PLACEMENT = (
    ("whole delegation fails", lambda r: r["summary"]["delegation_fails"], _more, True),
    ("ops on the CPU", lambda r: r["summary"]["ops_cpu"], _more, True),
    ("share of ops on the GPU", lambda r: _share(r), lambda a, b: b < a, False),
    ("delegated partitions (round trips per inference)", lambda r: r["summary"]["partitions_delegated"],
     _split_or_lost, True),
    ("partitions after delegation", lambda r: r["summary"]["partitions_total"], _more, True),
)
# Costs: informative unless they grow by more than the user's threshold.
COSTS = (
    ("channel-padding waste ratio", lambda r: round(r["channel_padding"]["waste_ratio"], 4)),
    ("bytes moved by reshape-like ops on the GPU",
     lambda r: sum(h["bytes_moved"] for h in r["hotspots"] if h["placement"] == "gpu")),
    ("bytes copied between CPU and GPU per inference", lambda r: r["boundaries"]["bytes_per_inference"]),
)


def _share(rec: dict) -> float:
    s = rec["summary"]
    return s["ops_gpu"] / s["ops_total"] if s["ops_total"] else 0.0


def diff_records(old: dict, new: dict, cost_threshold: float | None = None) -> list[Change]:
    """Every measure that differs, then every op type whose count on the CPU changed.
    `cost_threshold`: a cost measure growing by more than this fraction of its old value (any
    growth from zero) is a regression; None: costs never are."""
    changes = []
    for label, read, worse, gating in PLACEMENT:
        a, b = read(old), read(new)
        if a != b:
            changes.append(Change(label, a, b, worse(a, b), gating and worse(a, b)))
    for label, read in COSTS:
        a, b = read(old), read(new)
        if a != b:
            grew = cost_threshold is not None and b > a and (a == 0 or (b - a) / a > cost_threshold)
            changes.append(Change(label, a, b, b > a, grew))
    cpu_old = Counter(o["op"] for o in old["ops"] if o["placement"] == "cpu")
    cpu_new = Counter(o["op"] for o in new["ops"] if o["placement"] == "cpu")
    for op in sorted(set(cpu_old) | set(cpu_new)):
        if cpu_old[op] != cpu_new[op]:
            more = cpu_new[op] > cpu_old[op]
            changes.append(Change(f"{op} ops on the CPU", cpu_old[op], cpu_new[op], more, more))
    return changes


def new_findings(old: dict, new: dict) -> list[dict]:
    """Findings of `new` that `old` does not have, by code and message with its numbers left out:
    the same finding with other counts or node indices is not new (the measures above show how
    the counts moved)."""
    known = Counter(_finding_key(f) for f in old["findings"])
    out = []
    for f in new["findings"]:
        key = _finding_key(f)
        if known[key]:
            known[key] -= 1
        else:
            out.append(f)
    return out


def _finding_key(f: dict) -> tuple[str, str]:
    return f["code"], re.sub(r"\d+", "#", f["message"])


def failing_findings(findings: list[dict], fail_on: str) -> list[dict]:
    """The findings at or above `fail_on` ("error", "warning", "info"; "never": none)."""
    if fail_on == "never":
        return []
    return [f for f in findings if SEVERITIES.index(f["severity"]) <= SEVERITIES.index(fail_on)]
