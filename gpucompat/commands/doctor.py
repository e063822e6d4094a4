"""`gpucompat doctor`: can this machine run `verify` and `confirm`, and on what? Exit 0 when
`verify` has a working OpenCL device, 1 when it has none."""

from __future__ import annotations

import enum
import json
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS
from gpucompat.output.destination import write_text


class DoctorFormat(str, enum.Enum):
    terminal = "terminal"
    json = "json"


def doctor(
    output_format: Annotated[DoctorFormat, typer.Option("--format", help="Output format.")] = DoctorFormat.terminal,
) -> None:
    """Versions (Python, ai-edge-litert, pyopencl, the OpenCL runtimes), every OpenCL device with its
    probe and the one verify uses, the program cache directory, and the Vulkan driver confirm
    would use. Exit 0 when verify can run, 1 when it cannot."""
    from gpucompat.machine_facts import diagnose
    from gpucompat.output.doctor_view import terminal

    report = diagnose()
    write_text(json.dumps(report, indent=2) + "\n" if output_format is DoctorFormat.json else terminal(report), None)
    raise typer.Exit(EXIT_CLEAN if report["verify_can_run"] else EXIT_FINDINGS)
