"""`gpucompat diff OLD NEW`: what got worse or better between two versions of a model."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, BackendChoice, ConfigFile, FailOn, format_option
from gpucompat.errors import GpucompatError
from gpucompat.output.renderers import TERMINAL, Kind, emit


def diff(
    old: Annotated[str, typer.Argument(help="The earlier model.")],
    new: Annotated[str, typer.Argument(help="The later model.")],
    profile: Annotated[str | None, typer.Option(help="Delegate profile (default gpu-current).")] = None,
    backend: Annotated[BackendChoice | None, typer.Option(help="GPU backend (default cl, or the profile's own: gl for gl-delegate).")] = None,
    max_delegated_partitions: Annotated[int | None, typer.Option(help="Partitions delegated (default 1).")] = None,
    no_quant: Annotated[bool | None, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = None,
    output_format: Annotated[str, format_option(Kind.diff)] = TERMINAL,
    fail_on: Annotated[FailOn, typer.Option(help="Lowest severity of a new finding that is a regression.")] = FailOn.error,
    cost_threshold: Annotated[float | None, typer.Option(
        min=0.0, help="Relative growth of a cost (padding waste, bytes moved) that is a regression, "
                      "e.g. 0.1 for 10%; by default costs are printed only.")] = None,
    config: ConfigFile = None,
) -> None:
    """Compare two versions of a model under one profile. Exit 1 on a regression: ops moving to
    the CPU, a delegated partition lost or split, delegation starting to fail, a new finding at or
    above --fail-on, or a cost growing past --cost-threshold. Other changes are printed."""
    from gpucompat import config as configs
    from gpucompat.analyses.model_diff import diff_records, failing_findings, new_findings
    from gpucompat.output import diff_view
    from gpucompat.pipeline import Task, check_one
    from gpucompat.rules.support import registry

    cfg = configs.settings("diff", new, config)
    profile = cfg.profile(profile, registry.DEFAULT)
    task = Task("", profile, registry.backend_for(profile, cfg.pick("backend", backend.value if backend else None)),
                not cfg.pick("no_quant", no_quant, False), cfg.pick("max_delegated_partitions", max_delegated_partitions, 1))
    recs = [check_one(replace(task, path=p)) for p in (old, new)]
    for rec in recs:
        if rec["error"]:
            raise GpucompatError(f"{rec['path']}: {rec['error']}")
    changes = diff_records(*recs, cost_threshold=cost_threshold)
    added = new_findings(*recs)
    doc = diff_view.document(old, new, profile, changes, added, failing_findings(added, fail_on.value))
    emit(Kind.diff, output_format, doc)
    raise typer.Exit(EXIT_FINDINGS if doc["regression"] else EXIT_CLEAN)
