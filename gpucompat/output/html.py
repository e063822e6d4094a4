"""Render model records into the self-contained HTML report (templates in reports/templates/)."""

from __future__ import annotations

from gpucompat.output import graph_view, html_view

# Record keys drawn in a section of their own when present (each by its macro in sections.j2).
EXTRA_SECTIONS = (
    ("channel_padding", "Channel padding"),
    ("hotspots", "Reshape hotspots"),
    ("boundaries", "CPU / GPU boundaries"),
    ("fix", "Fix"),
    ("verify", "Verify"),
)


def _environment():
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("gpucompat.reports", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["pct"] = lambda part, whole: f"{100 * part / whole:.0f}%" if whole else "–"
    env.filters["count"] = count
    env.filters["num"] = number
    env.filters["yesno"] = lambda value: "yes" if value else "no"
    return env


def count(n: int, noun: str) -> str:
    """`1 partition`, `2 partitions`: a number and its noun, in the right number."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def number(x) -> str:
    """A measured value for a reader: floats to 3 significant digits, integers with thousands
    separators, "–" for none (a value no finite number describes), words for booleans."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def _model_view(rec: dict, changed: set[tuple[int, int]] = frozenset()) -> dict:
    if rec["error"]:
        return {"rec": rec}
    return {
        "rec": rec,
        "headline": html_view.headline(rec),
        "strips": [{"subgraph": sg, "runs": html_view.strip_runs(rec, sg["index"])} for sg in rec["subgraphs"]],
        "ops": html_view.script_json(html_view.ops_data(rec)),
        "padded": bool(html_view.op_padding(rec)),
        "what_if": sorted(rec.get("what_if") or [], key=lambda w: -w["gain"]),
        "strings": html_view.model_strings(rec),
        "sources": html_view.source_tree(rec),
        "graph": html_view.script_json(graph_view.graph_data(rec, changed)),
        "rules": html_view.rule_docs({f["code"] for f in rec["findings"]}),
        "extras": [(key, title, rec[key]) for key, title in EXTRA_SECTIONS if rec.get(key) not in (None, [], {})],
    }


def render(doc: dict, after: dict | None = None) -> str:
    """The report page for a JSON document (`records.document`); `after` is a second document
    (the fixed models, in the same order): each fixed model leads its section, the original's
    numbers beside its own."""
    later = after["models"] if after else []
    pages = [_model_view(rec) if i >= len(later) or later[i]["error"] else _leading_with(later[i], rec)
             for i, rec in enumerate(doc["models"])]
    return _environment().get_template("report.html.j2").render(tool=doc["tool"], pages=pages)


def _leading_with(fixed: dict, before: dict) -> dict:
    """The page of a fixed model, the result first: its headline, strip, graph and table, with the
    original's headline and the numbers before and after under its own (the fix and verify results
    attached to either record shown with it)."""
    attached = {k: before[k] for k in ("fix", "verify") if k in before and k not in fixed}
    changed = graph_view.written_by_fix(fixed, before) if not before["error"] else set()
    view = _model_view({**fixed, **attached}, changed)
    view["before"] = before
    view["before_headline"] = html_view.headline(before) if not before["error"] else before["error"]
    return view

