"""Exit codes and option types shared by the commands."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from gpucompat.errors import GpucompatError
from gpucompat.output.renderers import Kind, formats

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# Every command's --config: settings come from [tool.gpucompat] (gpucompat/config.py)
ConfigFile = Annotated[str | None, typer.Option(
    "--config", help="Read [tool.gpucompat] from this pyproject.toml instead of the nearest one above the model.")]


def format_option(kind: Kind, help_text: str = "Output format."):
    """The --format option of a command that writes documents of `kind`: its choices, in --help
    too, are the formats the renderer table has for that kind. Any other format is a usage error
    in one line (exit 2) naming it, and saying where to get it when check writes it."""
    choices = formats(kind)

    def known(ctx, param, value: str) -> str:
        if value in choices:
            return value
        hint = ""
        if kind is not Kind.check_report and value in formats(Kind.check_report):
            hint = f"; check writes {value} (gpucompat check MODEL --format {value})"
        raise GpucompatError(f"--format {value}: {ctx.info_name} writes {_alternatives(choices)}{hint}")

    return typer.Option("--format", metavar=f"<{'|'.join(choices)}>", callback=known, help=help_text)


def _alternatives(names: tuple[str, ...]) -> str:
    """"a, b or c"."""
    return " or ".join(filter(None, (", ".join(names[:-1]), names[-1])))


class FailOn(str, enum.Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class GroupBy(str, enum.Enum):
    source = "source"


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
