"""`gpucompat diff OLD NEW`: what got worse or better between two versions of a model."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, BackendChoice, Format
from gpucompat.errors import GpucompatError


def diff(
    old: Annotated[str, typer.Argument(help="The earlier model.")],
    new: Annotated[str, typer.Argument(help="The later model.")],
    profile: Annotated[str, typer.Option(help="Delegate profile.")] = "gpu-current",
    backend: Annotated[BackendChoice, typer.Option(help="GPU backend.")] = BackendChoice.cl,
    max_delegated_partitions: Annotated[int, typer.Option(help="Partitions delegated.")] = 1,
    output_format: Annotated[Format, typer.Option("--format", help="terminal or json.")] = Format.terminal,
) -> None:
    """Compare two versions of a model under one profile: ops moved to the CPU, partitions,
    padding waste, reshape and boundary bytes, new findings. Exit 1 when something got worse."""
    from gpucompat.analyses.model_diff import diff_records, new_findings
    from gpucompat.batch import Task, check_one

    if output_format not in (Format.terminal, Format.json):
        raise GpucompatError("diff writes terminal or json output")
    recs = [check_one(Task(p, profile, backend.value, True, max_delegated_partitions)) for p in (old, new)]
    for rec in recs:
        if rec["error"]:
            raise GpucompatError(f"{rec['path']}: {rec['error']}")
    changes = diff_records(*recs)
    added = new_findings(*recs)
    regression = any(c.regression for c in changes)
    if output_format is Format.json:
        typer.echo(json.dumps({"old": old, "new": new, "profile": profile, "regression": regression,
                               "changes": [{"measure": c.measure, "old": c.old, "new": c.new, "worse": c.worse,
                                            "regression": c.regression}
                                           for c in changes],
                               "new_findings": added}, indent=2))
    else:
        typer.echo(f"{old} -> {new}  [{profile}]")
        for c in changes:
            typer.echo(f"  {c.describe()}")
        for f in added:
            typer.echo(f"  new finding {f['code']} {f['severity']}: {f['message']}")
        if not changes and not added:
            typer.echo("  no change")
    raise typer.Exit(EXIT_FINDINGS if regression else EXIT_CLEAN)

