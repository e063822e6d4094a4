"""Option types and output plumbing shared by the commands."""

from __future__ import annotations

import enum
import sys
from typing import Annotated

import typer

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# Every command's --config: settings come from [tool.gpucompat] (gpucompat/config.py)
ConfigFile = Annotated[str | None, typer.Option(
    "--config", help="Read \\[tool.gpucompat] from this pyproject.toml instead of the nearest one above the model.")]


class Format(str, enum.Enum):
    terminal = "terminal"
    json = "json"
    sarif = "sarif"
    github = "github"
    model_explorer = "model-explorer"


class FailOn(str, enum.Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class BackendChoice(str, enum.Enum):
    cl = "cl"
    gl = "gl"
    metal = "metal"


def write_text(text: str, output: str | None, protect: tuple[str, ...] = ()) -> None:
    """Print `text`, or write it atomically to `output` (never over one of `protect`)."""
    if output:
        from gpucompat.ir.writer import write_atomic

        write_atomic(text.encode(), output, protect=protect)
    else:
        sys.stdout.write(text)
