"""`gpucompat report`: the self-contained HTML compatibility report of one or more models."""

from __future__ import annotations

from typing import Annotated

import typer

from gpucompat.commands.common import BackendChoice


def report(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    output: Annotated[str, typer.Option("--output", "-o", help="The HTML file to write (atomically).")],
    after: Annotated[str | None, typer.Option(help="A rewritten version of the model (from `gpucompat fix`), shown before/after.")] = None,
    profile: Annotated[str, typer.Option(help="Delegate profile (gpu-current, litert-mldrift, ...).")] = "gpu-current",
    backend: Annotated[BackendChoice, typer.Option(help="GPU backend the delegate ends up on.")] = BackendChoice.cl,
    max_delegated_partitions: Annotated[int, typer.Option(help="Partitions delegated (the runtime default is 1; <= 0 means 1).")] = 1,
    no_quant: Annotated[bool, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = False,
) -> None:
    """Write a self-contained HTML page: where each op runs and why, the partitions, the costs and
    the findings."""
    from gpucompat.batch import Task, check_many
    from gpucompat.discover import model_paths
    from gpucompat.errors import GpucompatError
    from gpucompat.report import write_report
    from gpucompat.rules import registry

    if backend.value not in registry.get(profile).backends:
        raise GpucompatError(f"profile {profile} has no {backend.value} backend")

    def records(files: list[str]) -> list[dict]:
        return check_many([Task(p, profile, backend.value, not no_quant, max_delegated_partitions) for p in files])

    files = model_paths(paths)
    later = records(model_paths([after])) if after else None
    write_report(records(files), output, protect=tuple(files) + ((after,) if after else ()), after=later)
    typer.echo(f"wrote {output}")
