"""Exit codes and option types shared by the commands."""

from __future__ import annotations

import enum
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
