"""The `gpucompat` command line. Exit codes: 0 clean, 1 findings at or above --fail-on,
2 usage error, unreadable or invalid model, or internal error."""

from __future__ import annotations

import enum
import json
import sys
from typing import Annotated

import typer
from typer.exceptions import TyperException

from gpucompat import __version__
from gpucompat.errors import GpucompatError

app = typer.Typer(
    name="gpucompat",
    help="Predict, explain and fix how the TFLite / LiteRT GPU delegate treats a .tflite model.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class Format(str, enum.Enum):
    terminal = "terminal"
    json = "json"


class FailOn(str, enum.Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class BackendChoice(str, enum.Enum):
    cl = "cl"
    gl = "gl"
    metal = "metal"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpucompat {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """gpucompat: the GPU delegate's verdict before the phone gives it."""


@app.command()
def check(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    profile: Annotated[str, typer.Option(help="Delegate profile (gpucompat profiles lists them).")] = "gpu-current",
    backend: Annotated[BackendChoice, typer.Option(help="GPU backend the delegate ends up on.")] = BackendChoice.cl,
    max_delegated_partitions: Annotated[int, typer.Option(help="Partitions delegated (the runtime default is 1; <= 0 means 1).")] = 1,
    no_quant: Annotated[bool, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = False,
    output_format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.terminal,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
    fail_on: Annotated[FailOn, typer.Option(help="Lowest finding severity that makes the exit code 1.")] = FailOn.error,
) -> None:
    """Report, per op, whether the GPU delegate takes it and why, and how the graph is partitioned."""
    from gpucompat.ir import load
    from gpucompat.output import records
    from gpucompat.rules import registry
    from gpucompat.rules.lint import SEVERITIES, run_all
    from gpucompat.rules.profile import Options
    from gpucompat.check import check_model
    from gpucompat.discover import model_paths

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
    _emit(recs, output_format, output, protect=tuple(p for p in paths))
    raise typer.Exit(status)


def _emit(recs: list[dict], output_format: Format, output: str | None, protect: tuple[str, ...]) -> None:
    from gpucompat.output import records

    if output_format is Format.json:
        text = json.dumps(records.document(recs), indent=2) + "\n"
    else:
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
        if not buf:
            return
        text = buf.getvalue()
    if output:
        from gpucompat.ir.writer import write_atomic

        write_atomic(text.encode(), output, protect=protect)
    else:
        sys.stdout.write(text)


def main() -> None:
    """Entry point: run the app, turning every error into one line and exit code 2."""
    try:
        code = app(standalone_mode=False)
    except typer.Exit as e:
        code = e.exit_code
    except GpucompatError as e:
        typer.echo(f"gpucompat: {e}", err=True)
        code = EXIT_ERROR
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("gpucompat: aborted", err=True)
        code = EXIT_ERROR
    except TyperException as e:  # usage errors: click's own one-line message
        e.show()
        code = EXIT_ERROR
    except Exception as e:  # anything unexpected: one line, never a traceback
        typer.echo(f"gpucompat: internal error: {type(e).__name__}: {e}", err=True)
        code = EXIT_ERROR
    sys.exit(code or 0)
