"""Delegated-but-wrong and never-measured forms, shared by GPU005, PREC408 and GPU007: ops the GPU
takes in a form (rules/support/forms.py) that the numerics calibration grid measured wrong on
LiteRT's real GPU accelerator, or never measured (rules/support/calibration/, or the table of a
calibrated profile file). The rules read the
table only: no form is judged by a hand-written predicate."""

from __future__ import annotations

from gpucompat.rules.lint import Finding
from gpucompat.rules.support import calibration
from gpucompat.rules.support.forms import judged

WRONG_CODES = ("GPU005", "PREC408", "GPU008")
UNMEASURED_CODES = ("GPU007",)


def evidence(table: calibration.Table, seen: dict, precision: str) -> str:
    """What the grid measured for a form at `precision`: what ran it, cosine, max error, example,
    and the runtime's own error when a shader failed to build (from the adapter it was wrong on)."""
    ev = seen[precision]
    if not ev["wrong"] and ev.get("without_f16", {}).get("wrong"):
        ev = ev["without_f16"]
    error = f"; the runtime: {ev['error']}" if ev.get("error") else ""
    return (f"{table.measured_on} at {precision}: cosine {ev['cosine']}, max error "
            f"{ev['max_error']:g} of the largest output ({ev['example']}{error})")


def delegated_keyed(result, analyses, table: calibration.Table):
    """(op record, form key in `table`) of every op the profile delegates that is judged by its
    form (forms.judged: all but the DEQUANTIZE of a constant the delegate folds)."""
    for o in result.ops:
        if o.placement == "gpu":
            op = analyses.model.graphs[o.subgraph].ops[o.index]
            if judged(op):
                yield o, table.key(op)


def wrong_findings(result, analyses, code: str) -> list[Finding]:
    """Findings of `code` (GPU005: wrong at fp32; PREC408: wrong at fp16 only) on the ops the
    profile delegates whose form the calibration recorded wrong."""
    table = calibration.for_profile(result.profile, result.options.backend)
    if table is None:
        return []
    out = []
    for o, key in delegated_keyed(result, analyses, table):
        fp32, fp16 = table.status(key, "fp32") == "wrong", table.status(key, "fp16") == "wrong"
        if (code == "GPU005" and fp32) or (code == "PREC408" and fp16 and not fp32):
            precision = "fp32" if fp32 else "fp16"
            where = "at fp32 and at its fp16 default" if fp32 and fp16 else (
                "at fp32" if fp32 else "at its fp16 default")
            gpus = table.condition(key, precision)
            out.append(Finding(
                code, "error",
                f"subgraph {o.subgraph} op#{o.index} {o.op} [{key}] is delegated and computes wrong values "
                f"{where}{' ' + gpus if gpus else ''}{tainted(result, analyses, o)}: observed with "
                f"{evidence(table, table.observed(key), precision)}",
                ((o.subgraph, o.index),)))
    return out


def tainted(result, analyses, o) -> str:
    """What else a wrong op spoils, as a finding says it: its GPU partition and the graph outputs
    that partition reaches."""
    reach = partition_reach(result, analyses.model, o)
    if reach is None:
        return ""
    nodes, reached = reach
    names = ", ".join(repr(t.name) for t in reached[:4]) + (f" and {len(reached) - 4} more" if len(reached) > 4 else "")
    return (f", and with it GPU partition {o.partition} (ops #{min(nodes)}-#{max(nodes)}), which reaches "
            f"{'the graph outputs ' + names if reached else 'no graph output'}")


def partition_reach(result, model, o) -> tuple[list[int], list] | None:
    """The node indices of the partition op record `o` runs in and the graph outputs computed
    from any of them, in the graph's output order (a shader that fails to build leaves every
    output of its partition unwritten, not only the op's); None when it is in no partition."""
    sub = result.subgraphs[o.subgraph]
    if o.partition is None or o.partition >= len(sub.subsets):
        return None
    nodes = sub.subsets[o.partition].nodes
    graph = model.graphs[o.subgraph]
    seen, stack = set(), [t for i in nodes for t in graph.ops[i].outputs]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        stack.extend(u for c in t.consumers for u in c.outputs)
    return nodes, [t for t in graph.outputs if id(t) in seen]
