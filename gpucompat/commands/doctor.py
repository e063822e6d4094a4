"""`gpucompat doctor`: can this machine run `verify` and `confirm`, and on what? Exit 0 when
`verify` has a working OpenCL device, 1 when it has none."""

from __future__ import annotations

from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, format_option
from gpucompat.output.renderers import TERMINAL, Kind, emit


def doctor(
    output_format: Annotated[str, format_option(Kind.doctor)] = TERMINAL,
) -> None:
    """Versions (Python, ai-edge-litert, pyopencl, the OpenCL runtimes), every OpenCL device with its
    probe and the one verify uses, the program cache directory, the Vulkan driver confirm would
    use, and whether the classic GL delegate runs (confirm --delegate gl). Exit 0 when verify can
    run, 1 when it cannot."""
    from gpucompat.machine_facts import diagnose

    report = diagnose()
    emit(Kind.doctor, output_format, report)
    raise typer.Exit(EXIT_CLEAN if report["verify_can_run"] else EXIT_FINDINGS)
