"""The terminal summary of a check (rich; colour only on a TTY).

Names in a record come from the model: every string is made printable first (no control
characters reach the terminal), and everything is printed as plain text, never parsed as rich
markup (`_print`, `_row`)."""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpucompat.output import by_source, records
from gpucompat.placement import NO_LOAD
from gpucompat.text import printable_record

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_TOP = 5  # entries shown per ranked list (the JSON has them all)


def _print(console: Console, *objects) -> None:
    """Print as plain text: brackets in a model's names stay brackets."""
    console.print(*objects, markup=False)


def _row(table: Table, *cells: str) -> None:
    """Add a row of plain-text cells (a str cell would be parsed as markup)."""
    table.add_row(*(Text(c) for c in cells))


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "-"


def render_model(console: Console, rec: dict) -> None:
    """Print one model's record."""
    _render_model(console, _shown(rec))


def _shown(rec: dict, group_by: str | None = None) -> dict:
    """The parts of a model record the terminal prints, made printable: not the per-op list (with
    `group_by` "source", the groups of gpucompat.output.by_source made from it), and of the
    channel-padding lists (ranked worst first) only the entries it shows. Made printable, a
    20,000-op model's whole record would cost more than its check."""
    shown = {k: v for k, v in rec.items() if k != "ops"}
    if group_by == "source" and not rec["error"]:
        hints = {tuple(n): u["hints"] for u in rec["unsupported"] for n in u["nodes"] if u.get("hints")}
        shown["by_source"] = [{**g, "label": by_source.label(g), "nodes": len(g["nodes"]),
                               "rejected": [(o["index"], o["op"], o["reason"] or "") for o in g["rejected"]],
                               "hints": list({h["key"]: h for o in g["rejected"]
                                              for h in hints.get((o["subgraph"], o["index"]), ())}.values())}
                              for g in by_source.groups(rec) if g["rejected"] or g["findings"]]
    cp = shown.get("channel_padding")
    if cp:
        shown["channel_padding"] = {**cp, "tensors": cp["tensors"][:_TOP], "ops": cp["ops"][:_TOP]}
    return printable_record(shown)


def _render_model(console: Console, rec: dict) -> None:
    path = rec["path"]
    if rec["error"]:
        _print(console, Text(f"{path}: error: {rec['error']}", style="bold red"))
        return
    s = rec["summary"]
    head = Text()
    head.append(f"{path}", style="bold")
    head.append(f"  [{records.shown(rec)}, backend {rec['options']['backend']}]")
    _print(console, head)
    _print(console, f"  ops: {s['ops_total']} total, {s['ops_gpu']} on GPU ({_pct(s['ops_gpu'], s['ops_total'])}), "
                  f"{s['ops_cpu']} on CPU ({_pct(s['ops_cpu'], s['ops_total'])})")
    _print(console, f"  partitions: {s['partitions_total']} after delegation (CPU and GPU), "
                  f"{s['partitions_delegated']} delegated")
    if rec.get("inputs"):
        _print(console, f"  value ranges on: {rec['inputs']}")
    if s.get("failure"):
        _print(console, Text(f"  NO GPU AT ALL: {s['failure']}", style="bold white on red"))
    elif s["delegation_fails"]:
        _print(console, Text("  DELEGATION FAILS: an op accepted at partitioning cannot be built on the GPU; "
                           "the interpreter restores the original plan and every op runs on the CPU.",
                           style="bold white on red"))
    if s.get("backend_used") and s["backend_used"] != rec["options"]["backend"]:
        _print(console, f"  the {rec['options']['backend']} kernel build fails; the delegate falls back to "
                      f"{s['backend_used']} and builds there")
    named = sum(1 for sg in rec["subgraphs"] if sg.get("signatures")) > 1  # prefill and decode: name them
    for sg in rec["subgraphs"]:
        if sg["gate"]:
            _print(console, Text(f"  SUBGRAPH {sg['index']} NOT DELEGATED: {sg['gate']}", style="bold white on red"))
        if sg["topology_problem"]:
            _print(console, Text(f"  subgraph {sg['index']}: invalid execution order: {sg['topology_problem']}",
                               style="bold red"))
        lost = " chosen, but the model never loads" if s.get("failure") and NO_LOAD in s["failure"] else \
            " chosen, lost with the delegation" if s.get("failure") or s["delegation_fails"] else None
        _render_subsets(console, sg, named, lost)
    if rec["unsupported"]:
        table = Table(title="ops the GPU delegate rejects", title_justify="left", show_edge=False)
        where = any(u.get("sources") for u in rec["unsupported"])  # no column when no name reads
        for col in ("op code", "op", "count", "layer", "reason", "nodes", *(("where",) if where else ())):
            table.add_column(col)
        for u in rec["unsupported"]:
            nodes = ", ".join(f"{g}:{i}" for g, i in u["nodes"][:8]) + (" ..." if len(u["nodes"]) > 8 else "")
            _row(table, f"#{u['opcode']}", u["op"], str(u["count"]), u["layer"], u["reason"], nodes,
                 *((_where(u),) if where else ()))
        _print(console, table)
        for hint in {h["key"]: h for u in rec["unsupported"] for h in u.get("hints", [])}.values():
            _print(console, f"  at the source: {hint['before']}: write {hint['after']}")
    if rec.get("wrong"):
        _print(console, Text(f"  {s['ops_wrong']} delegated op(s) compute wrong values on the GPU", style="bold red"))
        table = Table(title="ops the GPU takes and computes wrongly", title_justify="left", show_edge=False)
        for col in ("code", "node", "what was observed"):
            table.add_column(col)
        for w in rec["wrong"]:
            _row(table, w["code"], ", ".join(f"{g}:{i}" for g, i in w["nodes"]), w["message"])
        _print(console, table)
    if s.get("ops_unmeasured"):
        _print(console, Text(f"  {s['ops_unmeasured']} delegated op(s) in forms never measured on the real GPU "
                             "(GPU007): their values on the GPU are unproven", style="yellow"))
    _render_costs(console, rec)
    if "by_source" in rec:
        _render_by_source(console, rec)
    else:
        for f in rec["findings"]:
            if not f.get("baselined"):
                _print_finding(console, f, "  ")
    baselined = sum(1 for f in rec["findings"] if f.get("baselined"))
    if baselined:
        _print(console, f"  ({baselined} finding(s) already in the baseline not shown)")
    _print(console)


def _print_finding(console: Console, f: dict, indent: str) -> None:
    line = Text(indent)
    line.append(f["code"], style=_SEVERITY_STYLE.get(f["severity"], ""))
    line.append(f" {f['severity']}: {f['message']}")
    _print(console, line)


def _where(entry: dict) -> str:
    """The sources of a rejected group, the first three named."""
    paths = [by_source.shown_path(p) for p in entry.get("sources", [])]
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "") if paths else "-"


def _render_by_source(console: Console, rec: dict) -> None:
    """Per layer or module with a rejected op or a finding: its ops' placement, what is rejected,
    its findings; then the findings no op carries."""
    groups = rec["by_source"]
    if groups:
        _print(console, "  by source (Keras layer, PyTorch module or TF scope):")
    for g in groups:
        _print(console, Text(f"    {g['label']}: {g['ops']} op(s), {g['gpu']} on GPU, {g['cpu']} on CPU", style="bold"))
        for index, op, reason in g["rejected"]:
            _print(console, f"      {op} #{index} rejected: {reason}")
        for hint in g["hints"]:
            _print(console, f"      at the source: {hint['before']}: write {hint['after']}")
        for f in g["findings"]:
            if not f.get("baselined"):
                _print_finding(console, f, "      ")
    for f in rec["findings"]:
        if not f["nodes"] and not f.get("baselined"):
            _print_finding(console, f, "  ")


def render_document(console: Console, doc: dict, skip_errors: bool = False, group_by: str | None = None) -> None:
    """Print every model record, then the profile comparison and, for several models, a summary.
    `skip_errors`: error records were already reported on stderr; `group_by` "source": findings
    per layer or module."""
    doc = printable_record({k: v for k, v in doc.items() if k != "models"}) \
        | {"models": [_shown(r, group_by) for r in doc["models"]]}
    for rec in doc["models"]:
        if not (rec["error"] and skip_errors):
            _render_model(console, rec)
    if "comparison" in doc:
        _render_comparison(console, doc["comparison"])
    if len(doc["models"]) > 1 and "comparison" not in doc:
        _render_summary(console, doc["models"])


def _render_costs(console: Console, rec: dict) -> None:
    """Where the time goes: what-if list, padding, hotspots, boundaries."""
    if rec["what_if"]:
        _print(console, "  what to change first:")
        for w in rec["what_if"][:_TOP]:
            _print(console, f"    {w['summary']}")
            if w.get("command"):
                _print(console, f"      {w['command']}")
    cp = rec["channel_padding"]
    if cp and cp["padded_elements"]:
        _print(console, f"  channel padding: {cp['waste_ratio']:.0%} of GPU tensor elements are padding "
                      f"({cp['padded_elements'] - cp['useful_elements']} of {cp['padded_elements']}); "
                      f"MACs {cp['useful_macs']} useful of {cp['padded_macs']}")
        for t in [t for t in cp["tensors"] if t["padded_elements"] > t["useful_elements"]][:_TOP]:
            note = " (C<4: may be stored unpadded on OpenCL)" if t["single_texture_possible"] else ""
            _print(console, f"    {t['name'] or '#' + str(t['index'])} {t['shape']}: C={t['channels']}, "
                          f"{t['wasted_bytes']} bytes of padding{note}")
    if rec["hotspots"]:
        _print(console, "  reshape hotspots (bytes moved per inference):")
        for h in rec["hotspots"][:_TOP]:
            fix = f"; fix: {h['fix']}" if h["fix"] else ""
            _print(console, f"    {h['subgraph']}:{h['index']} {h['op']} on {h['placement'].upper()}: "
                          f"{h['bytes_moved']} bytes; {h['detail']}{fix}")
    bd = rec["boundaries"]
    if bd and bd["kernels"]:
        _print(console, f"  CPU<->GPU: {bd['round_trips']} synchronous round trip(s) per inference, "
                      f"{bd['bytes_per_inference']} bytes copied")
        for k in bd["kernels"]:
            notes = [f"{t['name']} {t['dtype']}" + (" quantized: converted on the CPU" if t["quantized"] else "")
                     + (" 3 channels: widened to 4" if t["three_channels"] else "")
                     for t in k["tensors"] if t["quantized"] or t["three_channels"]]
            _print(console, f"    kernel of ops {_span(k['nodes'])} (subgraph {k['subgraph']}): "
                          f"{k['bytes_in']} bytes in, {k['bytes_out']} bytes out"
                          + (f"; {'; '.join(notes)}" if notes else ""))


def _span(nodes: list[int]) -> str:
    return f"#{nodes[0]}-{nodes[-1]}" if len(nodes) > 1 else f"#{nodes[0]}"


def _render_comparison(console: Console, comparison: list[dict]) -> None:
    table = Table(title="profiles side by side", title_justify="left")
    _add_model_column(table, [entry["path"] for entry in comparison])
    for col in ("profile", "ops on GPU", "delegated partitions", "partitions", "delegation"):
        table.add_column(col)
    for entry in comparison:
        for row in entry["profiles"]:
            if row["error"]:
                _row(table, entry["path"], records.shown(row), "-", "-", "-", f"error: {row['error']}")
                continue
            _row(table, entry["path"], records.shown(row), f"{row['ops_gpu']}/{row['ops_total']} "
                          f"({_pct(row['ops_gpu'], row['ops_total'])})", str(row["partitions_delegated"]),
                          str(row["partitions_total"]), "FAILS" if row["delegation_fails"] else "ok")
    _print(console, table)


def _render_summary(console: Console, models: list[dict]) -> None:
    folder, names = _distinct_names([rec["path"] for rec in models])
    table = Table(title=f"{len(models)} models" + (f" in {folder}" if folder else ""), title_justify="left")
    _add_model_column(table, names)
    for col in ("ops on GPU", "computed wrongly", "unmeasured", "delegated partitions", "findings"):
        table.add_column(col)
    for rec, name in zip(models, names, strict=True):
        if rec["error"]:
            _row(table, name, "-", "-", "-", "-", f"error: {rec['error']}")
            continue
        s = rec["summary"]
        open_findings = [f for f in rec["findings"] if not f.get("baselined")]
        _row(table, name, f"{s['ops_gpu']}/{s['ops_total']} ({_pct(s['ops_gpu'], s['ops_total'])})",
                      _known(s.get("ops_wrong")), _known(s.get("ops_unmeasured")), str(s["partitions_delegated"]),
                      str(len(open_findings)))
    _print(console, table)


def _known(count: int | None) -> str:
    """A count, or "not measured" where the profile has no numerics table (unknown is not zero)."""
    return "not measured" if count is None else str(count)


def _distinct_names(paths: list[str]) -> tuple[str, list[str]]:
    """The folder every path shares (said once, in the title) and each path below it: shorter
    names that stay as distinct as the paths are."""
    folders = {os.path.dirname(p) for p in paths}
    if len(paths) < 2 or any(os.path.isabs(p) != os.path.isabs(paths[0]) for p in paths):
        return "", paths
    common = os.path.commonpath(sorted(folders)) if all(folders) else ""
    if not common:
        return "", paths
    return common + os.sep, [os.path.relpath(p, common) for p in paths]


def _add_model_column(table: Table, names: list[str]) -> None:
    """The model column: a name is never cut short (two models cut to the same `examples/mod…`
    could not be told apart); on a narrow terminal it folds onto more lines instead."""
    table.add_column("model", overflow="fold")


def _render_subsets(console: Console, sg: dict, named: bool, lost: str | None) -> None:
    """The subgraph's node subsets on one line; `named`: with the signatures that run it (a model
    whose signatures run different subgraphs); `lost`: what a subset chosen for the GPU reads
    when it is not delegated after all (the whole delegation fails, or the model never loads)."""
    if not sg["node_subsets"]:
        return
    parts = []
    for sub in sg["node_subsets"]:
        nodes = sub["nodes"]
        span = f"{min(nodes)}-{max(nodes)}" if len(nodes) > 1 else str(nodes[0])
        kind = sub["type"].upper()
        chosen = lost or " delegated"
        mark = chosen if sub["delegated"] else (" (stays on CPU)" if kind == "GPU" else "")
        parts.append(f"[{sub['index']}] {kind} {len(nodes)} op(s) #{span}{mark}")
    signed = f" (signature {', '.join(sg['signatures'])})" if named and sg["signatures"] else ""
    _print(console, f"  subgraph {sg['index']}{signed} node subsets: " + "; ".join(parts))
