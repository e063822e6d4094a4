"""The `gpucompat` command line: the app, its commands (one module each in gpucompat/commands/),
and the entry point. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage error,
unreadable or invalid model, or internal error."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer
from typer.exceptions import TyperException

from gpucompat import __version__, debug
from gpucompat.commands.calibrate import calibrate
from gpucompat.commands.check import check
from gpucompat.commands.common import EXIT_ERROR
from gpucompat.commands.confirm import confirm
from gpucompat.commands.diff import diff
from gpucompat.commands.doctor import doctor
from gpucompat.commands.fix import fix
from gpucompat.commands.opcode import opcode
from gpucompat.commands.report import report
from gpucompat.commands.rules import explain, rules
from gpucompat.commands.verify import verify
from gpucompat.errors import GpucompatError
from gpucompat.text import printable

app = typer.Typer(
    name="gpucompat",
    help="Predict, explain and fix how the TFLite / LiteRT GPU delegate treats a .tflite model.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


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


app.command()(check)
app.command()(diff)
app.command()(rules)
app.command()(explain)
app.command()(opcode)
app.command()(report)
app.command()(fix)
app.command()(verify)
app.command()(confirm)
app.command()(calibrate)
app.command()(doctor)


def main() -> None:
    """Entry point: run the app, turning every error into one line and exit code 2."""
    try:
        debug.configure()
        try:
            code = app(standalone_mode=False)
        finally:
            _settle_background()
    except typer.Exit as e:
        code = e.exit_code
    except GpucompatError as e:
        first, *more = (printable(line) for line in e.lines())  # names from the model are untrusted
        typer.echo("\n".join([f"gpucompat: {first}", *more]), err=True)
        code = EXIT_ERROR
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("gpucompat: aborted", err=True)
        code = EXIT_ERROR
    except TyperException as e:  # usage errors: click's own one-line message
        e.show()
        code = EXIT_ERROR
    except Exception as e:  # anything unexpected: one line, never a traceback
        typer.echo(f"gpucompat: internal error: {type(e).__name__}: {printable(str(e))}", err=True)
        code = EXIT_ERROR
    sys.exit(code or 0)


def _settle_background() -> None:
    """Let an OpenCL device still being opened in the background finish before anything more is
    written (its probe silences stderr while it builds) and before the process ends at once; no
    import when the command never touched OpenCL."""
    device = sys.modules.get("gpucompat.opencl.device")
    if device is not None:
        device.settle()


def run() -> None:
    """The `gpucompat` command and `python -m gpucompat`: `main`, in a process that ends with
    the command, at once: a checked model is hundreds of thousands of objects, and freeing them
    one by one at exit costs a tenth of a 20,000-op check. Every output file is written and
    closed by then; the streams are flushed first."""
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else EXIT_ERROR
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): nothing more can reach it
            pass
    os._exit(code)
