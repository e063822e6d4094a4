"""`gpucompat confirm`'s views: the JSON document and the terminal table, the runtime's side (LiteRT's
accelerator, or the classic GL delegate) beside its profile's prediction with every disagreement marked."""

from __future__ import annotations


def document(results: list) -> dict:
    """The JSON document: the runtime used and one record per model."""
    from gpucompat import __version__
    from gpucompat.confirm import compare

    first = results[0].runtime if results else None
    return {"schema_version": 1, "tool": f"gpucompat {__version__}",
            "runtime": {"litert": first.litert if first else None, "device": first.facts.adapter if first else None,
                        "delegate": results[0].runtime_name if results else None},
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
        console.print(f"[bold]{c.path}[/bold]  LiteRT {c.runtime.litert or '?'} {c.runtime_name} on "
                      f"{c.runtime.facts.adapter or 'an unnamed device'}")
        table = Table(show_edge=False, pad_edge=False)
        for name in ("", "runtime", c.prediction.profile.label, ""):
            table.add_column(name)
        rows = [("compiles", _yes(real.compiles), _yes(ours.compiles)),
                ("GPU ops per subgraph", _counts(real.gpu_ops), _counts(ours.gpu_ops)),
                ("partitions per subgraph", _counts(real.partitions), _counts(ours.partitions)),
                ("fully delegated", _yes(real.fully_delegated), _yes(ours.fully_delegated)),
                ("rejected op types", _types(real.rejected), _types(ours.rejected)),
                ("dynamic-tensor gate", _yes(real.dynamic_gate), _yes(ours.dynamic_gate))]
        for label, a, b in rows:
            flagged = any(d.startswith(_topic(label)) for d in c.disagreements)
            # a model that does not compile on both sides has its rejected op types listed, not compared
            # (a crash stops the runtime's list part-way)
            aside = "not compared" if (label == "rejected op types" and a != b and not (
                real.compiles and ours.compiles)) or a == NOT_SAID else ""
            table.add_row(label, a, b, "[red]differs[/red]" if flagged else aside)
        console.print(table)
        if real.failure:
            console.print(f"  runtime: {escape(real.failure)}")
        if ours.failure:
            console.print(f"  predicted: {escape(ours.failure)}")
        if c.not_judged:
            console.print(f"  not judged: the interpreter here cannot load it ({escape(c.not_judged)}); an app "
                          "that registers the op would")
        for op in sorted(real.rejected or ()):
            console.print(f"  runtime rejects {op}: "
                          f"{escape('; '.join(r or '(no reason given)' for r in real.rejected[op]))}")
        for d in c.disagreements:
            console.print(f"  [red]disagreement[/red] {escape(d)}")
        said = summary(c.unproven)
        if said:
            console.print(f"  compiling runs nothing; by the calibration, {escape(said)} (run it: `gpucompat "
                          f"verify {escape(c.path)} --runner litert-gpu`)")
        console.print()
    agree = sum(1 for c in results if not c.disagreements and not c.not_judged)
    judged = sum(1 for c in results if not c.not_judged)
    profile = results[0].prediction.profile.name if results else "the profile"
    console.print(f"{agree} of {judged} model(s): the runtime and {profile} agree"
                  + (f" ({len(results) - judged} not judged)" if judged < len(results) else ""))
    return buf.getvalue()


def _topic(label: str) -> str:
    """The words a disagreement about this row starts with (gpucompat.confirm.compare.disagreements)."""
    return {"GPU ops per subgraph": "GPU ops", "partitions per subgraph": "partitions",
            "rejected op types": "rejected op"}.get(label, label)


NOT_SAID = "not said"  # a fact the runtime does not report (the classic GL delegate: partitions, rejected types)


def _counts(per_subgraph: dict[int, int] | None) -> str:
    if per_subgraph is None:
        return NOT_SAID
    return ", ".join(f"{s}: {n}" for s, n in sorted(per_subgraph.items())) or "none"


def _types(rejected: dict[str, list[str]] | None) -> str:
    return NOT_SAID if rejected is None else ", ".join(sorted(rejected)) or "-"
