"""`gpucompat check`: per-op verdicts, partitions and findings for one or more models."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, BackendChoice, FailOn, Format, write_text
from gpucompat.errors import GpucompatError


def check(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    profile: Annotated[str, typer.Option(help="Delegate profile: gpu-current (default), ...")] = "gpu-current",
    backend: Annotated[BackendChoice, typer.Option(help="GPU backend the delegate ends up on.")] = BackendChoice.cl,
    max_delegated_partitions: Annotated[int, typer.Option(help="Partitions delegated (the runtime default is 1; <= 0 means 1).")] = 1,
    no_quant: Annotated[bool, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = False,
    output_format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.terminal,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
    fail_on: Annotated[FailOn, typer.Option(help="Lowest finding severity that makes the exit code 1.")] = FailOn.error,
) -> None:
    """Report, per op, whether the GPU delegate takes it and why, and how the graph is partitioned."""
    from gpucompat.check import check_model
    from gpucompat.discover import model_paths
    from gpucompat.ir import load
    from gpucompat.output import records
    from gpucompat.rules import registry
    from gpucompat.rules.lint import SEVERITIES, run_all
    from gpucompat.rules.profile import Options

    prof = registry.get(profile)
    if backend.value not in prof.backends:
        raise GpucompatError(f"profile {profile} has no {backend.value} backend (it has: {', '.join(prof.backends)})")
    options = Options(allow_quant=not no_quant, backend=backend.value, max_delegated_partitions=max_delegated_partitions)
    threshold = None if fail_on is FailOn.never else SEVERITIES.index(fail_on.value)
    status = EXIT_CLEAN
    recs = []
    for path in model_paths(paths):
        try:
            result = check_model(load(path), prof, options)
        except GpucompatError as e:
            recs.append(records.error_record(path, prof.name, str(e).removeprefix(f"{path}: ")))
            status = EXIT_ERROR
            continue
        findings = run_all(result)
        recs.append(records.model_record(result, findings))
        if threshold is not None and any(SEVERITIES.index(f.severity) <= threshold for f in findings):
            status = max(status, EXIT_FINDINGS)
    _emit(recs, output_format, output, protect=tuple(paths))
    raise typer.Exit(status)


def _emit(recs: list[dict], output_format: Format, output: str | None, protect: tuple[str, ...]) -> None:
    from gpucompat.output import records

    if output_format is Format.json:
        write_text(json.dumps(records.document(recs), indent=2) + "\n", output, protect)
        return
    from io import StringIO

    from rich.console import Console

    from gpucompat.output.terminal import render_model

    buf = StringIO() if output else None
    console = Console(file=buf, highlight=False, soft_wrap=True) if buf else Console(highlight=False)
    for rec in recs:
        if rec["error"] and not buf:
            typer.echo(f"gpucompat: {rec['path']}: {rec['error']}", err=True)
            continue
        render_model(console, rec)
    if buf:
        write_text(buf.getvalue(), output, protect)
