"""What got worse or better between two versions of a model, compared on their JSON records
(gpucompat.output.records) under the same profile and options."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass
class Change:
    """One measure that moved: `worse` says in which direction."""

    measure: str
    old: object
    new: object
    worse: bool
    gating: bool = True  # a worse value is a regression (byte counts only inform)

    @property
    def regression(self) -> bool:
        return self.worse and self.gating

    def describe(self) -> str:
        """"share of ops on the GPU: 100% -> 60% (worse)"."""
        fmt = (lambda v: f"{v:.0%}") if isinstance(self.old, float) or isinstance(self.new, float) else str
        return f"{self.measure}: {fmt(self.old)} -> {fmt(self.new)} ({'worse' if self.worse else 'better'})"


# (label, how to read it from a record, higher is worse, a worse value is a regression). Byte
# counts inform only: moving more ops to the GPU can move more bytes and still be the better model.
MEASURES = (
    ("whole delegation fails", lambda r: r["summary"]["delegation_fails"], True, True),
    ("share of ops on the GPU", lambda r: _share(r), False, True),
    ("delegated partitions (round trips per inference)", lambda r: r["summary"]["partitions_delegated"], True, True),
    ("partitions after delegation", lambda r: r["summary"]["partitions_total"], True, True),
    ("channel-padding waste ratio", lambda r: round(r["channel_padding"]["waste_ratio"], 4), True, True),
    ("bytes moved by reshape-like ops on the GPU",
     lambda r: sum(h["bytes_moved"] for h in r["hotspots"] if h["placement"] == "gpu"), True, False),
    ("bytes copied between CPU and GPU per inference", lambda r: r["boundaries"]["bytes_per_inference"], True, False),
)


def _share(rec: dict) -> float:
    s = rec["summary"]
    return s["ops_gpu"] / s["ops_total"] if s["ops_total"] else 0.0


def diff_records(old: dict, new: dict) -> list[Change]:
    """Every measure that differs, then every op type whose count on the CPU changed."""
    changes = []
    for label, read, higher_is_worse, gating in MEASURES:
        a, b = read(old), read(new)
        if a != b:
            changes.append(Change(label, a, b, (b > a) == higher_is_worse, gating))
    cpu_old = Counter(o["op"] for o in old["ops"] if o["placement"] == "cpu")
    cpu_new = Counter(o["op"] for o in new["ops"] if o["placement"] == "cpu")
    for op in sorted(set(cpu_old) | set(cpu_new)):
        if cpu_old[op] != cpu_new[op]:
            changes.append(Change(f"{op} ops on the CPU", cpu_old[op], cpu_new[op], cpu_new[op] > cpu_old[op]))
    return changes


def new_findings(old: dict, new: dict) -> list[dict]:
    """Findings of `new` that `old` does not have (by code and message)."""
    known = Counter((f["code"], f["message"]) for f in old["findings"])
    out = []
    for f in new["findings"]:
        key = (f["code"], f["message"])
        if known[key]:
            known[key] -= 1
        else:
            out.append(f)
    return out
