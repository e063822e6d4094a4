"""`gpucompat confirm`: compile models with LiteRT's real GPU accelerator (GPU + CPU accelerators,
no inference) in a child process and print what it did beside the `litert-mldrift` prediction, or
with `--delegate gl` apply the classic GL delegate and set it beside the `gl-delegate` prediction,
flagging every disagreement. Exit codes: 0 all agree, 1 a disagreement, 2 no usable Vulkan
device (no GL set-up or EGL driver for gl), a bad model file or another error."""

from __future__ import annotations

from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, ConfigFile, format_option
from gpucompat.output.renderers import TERMINAL, Kind, emit, say_written


def confirm(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    output_format: Annotated[str, format_option(Kind.confirm)] = TERMINAL,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
    vulkan_dir: Annotated[str | None, typer.Option(help="Directory whose env.sh ('export K=V' lines) names the Vulkan driver (default $GPUCOMPAT_VULKAN_DIR or ~/.cache/gpucompat-oracle when present).")] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds one model may take to compile before it is given up (default 120).")] = None,
    delegate: Annotated[str, typer.Option(help="The runtime to ask: 'accelerator' (LiteRT's GPU accelerator, against litert-mldrift) or 'gl' (the classic GL delegate, against gl-delegate).")] = "accelerator",
    gl_dir: Annotated[str | None, typer.Option(help="With --delegate gl: the directory holding the delegate's shim (default $GPUCOMPAT_GL_DIR or ~/.cache/gpucompat-gl).")] = None,
    config: ConfigFile = None,
) -> None:
    """Compile each model with LiteRT's own GPU accelerator and show, beside the litert-mldrift
    prediction: whether it compiles and why not, GPU ops and partitions per subgraph, full
    delegation, the op types the runtime rejects with its reasons, and the dynamic-tensor gate."""
    from gpucompat import config as configs
    from gpucompat.discover import model_paths
    from gpucompat.errors import GpucompatError

    if delegate not in DELEGATES:
        raise GpucompatError(f"--delegate must be one of {', '.join(DELEGATES)}, got {delegate!r}")
    files = model_paths(paths)
    cfg = configs.settings("confirm", files[0] if files else ".", config)
    if delegate == "gl":
        results = run_gl(files, cfg.pick("gl_dir", gl_dir), cfg.pick("timeout", timeout, 120.0))
    else:
        results = run(files, cfg.pick("vulkan_dir", vulkan_dir), cfg.pick("timeout", timeout, 120.0))
    emit(Kind.confirm, output_format, results, output, protect=tuple(files))
    say_written(output, output_format)
    raise typer.Exit(EXIT_FINDINGS if any(c.disagreements for c in results) else EXIT_CLEAN)


def after_check(files: list[str], status: int, config: str | None = None) -> int:
    """`check --confirm`: print the confirmation after check's own output (with confirm's settings
    from [tool.gpucompat]); a disagreement makes a clean exit status 1."""
    from gpucompat import config as configs

    cfg = configs.settings("confirm", files[0] if files else ".", config)
    results = run(files, cfg.pick("vulkan_dir"), cfg.pick("timeout", None, 120.0))
    emit(Kind.confirm, TERMINAL, results)
    if status == EXIT_CLEAN and any(c.disagreements for c in results):
        return EXIT_FINDINGS
    return status


DELEGATES = ("accelerator", "gl")


def run_gl(files: list[str], gl_dir: str | None = None, timeout: float = 120.0) -> list:
    """Confirmations of `files` on the classic GL delegate (gpucompat.confirm.gl_compare), one per file."""
    from gpucompat.confirm import gl_compare, gl_runner

    return gl_compare.confirm_gl(files, gl_runner.gl_launcher(gl_dir), timeout)


def run(files: list[str], vulkan_dir: str | None = None, timeout: float = 120.0) -> list:
    """Confirmations of `files` (gpucompat.confirm.compare.Confirmation), one per file."""
    from gpucompat.confirm import compare, runner

    return compare.confirm(files, runner.launcher(vulkan_dir), timeout)
