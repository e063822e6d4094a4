"""Render model records into the self-contained HTML report (templates in reports/templates/)."""

from __future__ import annotations

from gpucompat.output import html_view

# Record keys other issues add (analyses, fix, verify): each is shown in its own section when present.
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
    return env


def _model_view(rec: dict) -> dict:
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
        "rules": html_view.rule_docs({f["code"] for f in rec["findings"]}),
        "extras": [(key, title, rec[key]) for key, title in EXTRA_SECTIONS if rec.get(key) not in (None, [], {})],
    }


def render(doc: dict, after: dict | None = None) -> str:
    """The report page for a JSON document (`records.document`); `after` is a second document
    (the fixed model) to show side by side with the first."""
    pages = [_model_view(rec) for rec in doc["models"]]
    return _environment().get_template("report.html.j2").render(
        tool=doc["tool"], pages=pages, after=after["models"] if after else None)


def write_report(recs: list[dict], output: str, protect: tuple[str, ...] = (), after: list[dict] | None = None) -> None:
    """Render the records of a check into `output` (atomically)."""
    from gpucompat.output import records
    from gpucompat.output.destination import write_text

    write_text(render(records.document(recs), records.document(after) if after else None), output, protect)
