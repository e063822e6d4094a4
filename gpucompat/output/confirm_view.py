"""`gpucompat confirm`'s views: the JSON document and the terminal table, the runtime's side beside
the litert-mldrift prediction with every disagreement marked."""

from __future__ import annotations


def document(results: list) -> dict:
    """The JSON document: the runtime used and one record per model."""
    from gpucompat import __version__
    from gpucompat.confirm import compare

    first = results[0].runtime if results else None
    return {"schema_version": 1, "tool": f"gpucompat {__version__}",
            "runtime": {"litert": first.litert if first else None, "device": first.facts.adapter if first else None},
            "models": [compare.record(c) for c in results]}


def terminal(results: list) -> str:
    """Both sides per model as a table, disagreements marked, then the runtime's reasons, and the
    delegated ops the calibration knows wrong or never measured (compiling runs none of them), with
    the outputs a wrong one's GPU partition reaches."""
    from io import StringIO

    from rich.markup import escape
    from rich.table import Table

    from gpucompat.confirm.compare import yes_no as _yes
    from gpucompat.output.console import console_for
    from gpucompat.verification.real_gpu_forms import summary

    buf = StringIO()
    console = console_for(buf)  # text, never wrapped: the command echoes it
    for c in results:
        real, ours = c.observed, c.predicted
        console.print(f"[bold]{c.path}[/bold]  LiteRT {c.runtime.litert or '?'} GPU accelerator on "
                      f"{c.runtime.facts.adapter or 'an unnamed device'}")
        table = Table(show_edge=False, pad_edge=False)
        for name in ("", "runtime", c.prediction.profile.label, ""):
            table.add_column(name)
        rows = [("compiles", _yes(real.compiles), _yes(ours.compiles)),
                ("GPU ops per subgraph", _counts(real.gpu_ops), _counts(ours.gpu_ops)),
                ("partitions per subgraph", _counts(real.partitions), _counts(ours.partitions)),
                ("fully delegated", _yes(real.fully_delegated), _yes(ours.fully_delegated)),
                ("rejected op types", ", ".join(sorted(real.rejected)) or "-", ", ".join(sorted(ours.rejected)) or "-"),
                ("dynamic-tensor gate", _yes(real.dynamic_gate), _yes(ours.dynamic_gate))]
        for label, a, b in rows:
            flagged = any(d.startswith(_topic(label)) for d in c.disagreements)
            # a model that does not compile on both sides has its rejected op types listed, not compared
            # (a crash stops the runtime's list part-way)
            aside = "not compared" if label == "rejected op types" and a != b and not (
                real.compiles and ours.compiles) else ""
            table.add_row(label, a, b, "[red]differs[/red]" if flagged else aside)
        console.print(table)
        if real.failure:
            console.print(f"  runtime: {escape(real.failure)}")
        if ours.failure:
            console.print(f"  predicted: {escape(ours.failure)}")
        for op in sorted(real.rejected):
            console.print(f"  runtime rejects {op}: "
                          f"{escape('; '.join(r or '(no reason given)' for r in real.rejected[op]))}")
        for d in c.disagreements:
            console.print(f"  [red]disagreement[/red] {escape(d)}")
        said = summary(c.unproven)
        if said:
            console.print(f"  compiling runs nothing; by the calibration, {escape(said)} (run it: `gpucompat "
                          f"verify {escape(c.path)} --runner litert-gpu`)")
        console.print()
    agree = sum(1 for c in results if not c.disagreements)
    console.print(f"{agree} of {len(results)} model(s): the runtime and litert-mldrift agree")
    return buf.getvalue()


def _topic(label: str) -> str:
    """The words a disagreement about this row starts with (gpucompat.confirm.compare.disagreements)."""
    return {"GPU ops per subgraph": "GPU ops", "partitions per subgraph": "partitions",
            "rejected op types": "rejected op"}.get(label, label)


def _counts(per_subgraph: dict[int, int]) -> str:
    return ", ".join(f"{s}: {n}" for s, n in sorted(per_subgraph.items())) or "none"
