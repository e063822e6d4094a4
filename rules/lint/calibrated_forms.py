"""Delegated-but-wrong and never-measured forms, shared by GPU005, PREC408 and GPU007: ops the GPU
takes in a form (rules/support/forms.py) that the numerics calibration grid measured wrong on
LiteRT's real GPU accelerator, or never measured (rules/support/calibration/, or the table of a
calibrated profile file). The rules read the
table only: no form is judged by a hand-written predicate."""

from __future__ import annotations

from gpucompat.rules.lint import Finding
from gpucompat.rules.support import calibration
from gpucompat.rules.support.forms import KEYED, form_of

WRONG_CODES = ("GPU005", "PREC408")
UNMEASURED_CODES = ("GPU007",)


def evidence(record: dict, seen: dict, precision: str) -> str:
    """What the grid measured for a form at `precision`: the release, cosine, max error, example."""
    ev = seen[precision]
    return (f"LiteRT {record['litert']}'s accelerator at {precision}: cosine {ev['cosine']}, max error "
            f"{ev['max_error']:g} of the largest output ({ev['example']})")


def delegated_keyed(result, analyses):
    """(op record, form key) of every op the profile delegates whose op type has form keys."""
    for o in result.ops:
        if o.placement == "gpu" and o.op in KEYED:
            yield o, form_of(analyses.model.graphs[o.subgraph].ops[o.index])


def wrong_findings(result, analyses, code: str) -> list[Finding]:
    """Findings of `code` (GPU005: wrong at fp32; PREC408: wrong at fp16 only) on the ops the
    profile delegates whose form the calibration recorded wrong."""
    table = calibration.for_profile(result.profile)
    if table is None:
        return []
    out = []
    for o, key in delegated_keyed(result, analyses):
        fp32, fp16 = table.status(key, "fp32") == "wrong", table.status(key, "fp16") == "wrong"
        if (code == "GPU005" and fp32) or (code == "PREC408" and fp16 and not fp32):
            where = "at fp32 and at its fp16 default" if fp32 and fp16 else (
                "at fp32" if fp32 else "at its fp16 default")
            out.append(Finding(
                code, "error",
                f"subgraph {o.subgraph} op#{o.index} {o.op} [{key}] is delegated and computes wrong values "
                f"{where}: observed with {evidence(table.record, table.observed(key), 'fp32' if fp32 else 'fp16')}",
                ((o.subgraph, o.index),)))
    return out
