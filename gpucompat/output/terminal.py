"""The terminal summary of a check (rich; colour only on a TTY)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "-"


def render_model(console: Console, rec: dict) -> None:
    """Print one model's record."""
    path = rec["path"]
    if rec["error"]:
        console.print(Text(f"{path}: error: {rec['error']}", style="bold red"))
        return
    s = rec["summary"]
    head = Text()
    head.append(f"{path}", style="bold")
    head.append(f"  [{rec['profile']}, backend {rec['options']['backend']}]")
    console.print(head)
    console.print(f"  ops: {s['ops_total']} total, {s['ops_gpu']} on GPU ({_pct(s['ops_gpu'], s['ops_total'])}), "
                  f"{s['ops_cpu']} on CPU ({_pct(s['ops_cpu'], s['ops_total'])})")
    console.print(f"  partitions: {s['partitions_total']} after delegation (CPU and GPU), "
                  f"{s['partitions_delegated']} delegated")
    if s["delegation_fails"]:
        console.print(Text("  DELEGATION FAILS: an op accepted at partitioning cannot be built on the GPU; "
                           "the interpreter restores the original plan and every op runs on the CPU.",
                           style="bold white on red"))
    for sg in rec["subgraphs"]:
        if sg["gate"]:
            console.print(Text(f"  SUBGRAPH {sg['index']} NOT DELEGATED: {sg['gate']}", style="bold white on red"))
        if sg["topology_problem"]:
            console.print(Text(f"  subgraph {sg['index']}: invalid execution order: {sg['topology_problem']}",
                               style="bold red"))
        _render_subsets(console, sg)
    if rec["unsupported"]:
        table = Table(title="ops the GPU delegate rejects", title_justify="left", show_edge=False)
        for col in ("op code", "op", "count", "layer", "reason", "nodes"):
            table.add_column(col)
        for u in rec["unsupported"]:
            nodes = ", ".join(f"{g}:{i}" for g, i in u["nodes"][:8]) + (" ..." if len(u["nodes"]) > 8 else "")
            table.add_row(f"#{u['opcode']}", u["op"], str(u["count"]), u["layer"], u["reason"], nodes)
        console.print(table)
    for f in rec["findings"]:
        line = Text("  ")
        line.append(f["code"], style=_SEVERITY_STYLE.get(f["severity"], ""))
        line.append(f" {f['severity']}: {f['message']}")
        console.print(line)
    console.print()


def _render_subsets(console: Console, sg: dict) -> None:
    if not sg["node_subsets"]:
        return
    parts = []
    for sub in sg["node_subsets"]:
        nodes = sub["nodes"]
        span = f"{min(nodes)}-{max(nodes)}" if len(nodes) > 1 else str(nodes[0])
        kind = sub["type"].upper()
        mark = " delegated" if sub["delegated"] else (" (stays on CPU)" if kind == "GPU" else "")
        parts.append(f"[{sub['index']}] {kind} {len(nodes)} op(s) #{span}{mark}")
    console.print(f"  subgraph {sg['index']} node subsets: " + "; ".join(parts))
