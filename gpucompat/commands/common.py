"""Exit codes and option types shared by the commands."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# Every command's --config: settings come from [tool.gpucompat] (gpucompat/config.py)
ConfigFile = Annotated[str | None, typer.Option(
    "--config", help="Read [tool.gpucompat] from this pyproject.toml instead of the nearest one above the model.")]


class Format(str, enum.Enum):
    terminal = "terminal"
    json = "json"
    sarif = "sarif"
    github = "github"
    model_explorer = "model-explorer"


class DocumentFormat(str, enum.Enum):
    """The formats of a command whose output is one document, not per-finding results (fix,
    verify, diff): SARIF, GitHub annotations and Model Explorer data are check's alone, and
    asking another command for them is a usage error."""

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

# --inputs and the normalization of an image directory, the same for check, verify and fix
# (gpucompat/sample_inputs.py, gpucompat/image_inputs.py)
INPUTS_HELP = ("a .npz with one array per input, keyed by name or index, first axis = samples; or a directory of "
               "PNG / JPEG images for a model with one image input [1,H,W,C] (one sample per image, resized "
               "bilinearly, normalized by --input-range / --input-mean / --input-std, else by the model's "
               "metadata, else to [0, 1])")
InputRange = Annotated[str | None, typer.Option(
    "--input-range", help="Image inputs: map pixels 0..255 onto LO,HI (e.g. 0,1 or -1,1).")]
InputMean = Annotated[str | None, typer.Option(
    "--input-mean", help="Image inputs: (pixel - MEAN) / STD with pixels 0..255; one value or one per channel.")]
InputStd = Annotated[str | None, typer.Option(
    "--input-std", help="Image inputs: the STD of --input-mean (default 1; one value or one per channel).")]
