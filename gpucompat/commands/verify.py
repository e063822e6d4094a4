"""`gpucompat verify`: compare hybrid execution (GPU partitions on the included OpenCL executor)
with the reference interpreter, like TFLite's inference_diff, with pass/fail thresholds."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, Format, write_text
from gpucompat.errors import GpucompatError


# Test backends and their default number of runs: the accelerator's first inference compiles
# shaders for 10-40 s on the software Vulkan driver, so it runs few by default.
BACKENDS = {"opencl": 50, "litert-gpu": 3}


def _overrides(specs: list[str]) -> dict:
    from gpucompat.verify.tolerance import Tolerance

    out = {}
    for spec in specs:
        name, sep, values = spec.rpartition("=")
        parts = values.split(",")
        try:
            if not sep or len(parts) != 2:
                raise ValueError
            out[name] = Tolerance(float(parts[0]), float(parts[1]))
        except ValueError:
            raise GpucompatError(f"--output-tolerance {spec!r}: expected NAME_OR_INDEX=ATOL,RTOL") from None
    return out


def verify(
    model: Annotated[str, typer.Argument(help="The .tflite model to run.")],
    runs: Annotated[int | None, typer.Option(help="Number of runs (default 50 seeded random input sets, 3 on litert-gpu; with --inputs, every sample).")] = None,
    inputs: Annotated[str | None, typer.Option("--inputs", help="Input samples instead of random ones: a .npz file with one array per input, keyed by input name or index, the first axis counting samples.")] = None,
    backend: Annotated[str, typer.Option(help="Test backend: opencl (hybrid execution on the included executor) or litert-gpu (LiteRT's real GPU accelerator in fp32, fully delegated models only).")] = "opencl",
    precision: Annotated[str, typer.Option(help="Executor precision: fp32, or fp16 (half storage, float arithmetic).")] = "fp32",
    device: Annotated[str | None, typer.Option(help="OpenCL device: index or part of its name (default: a GPU, else PoCL).")] = None,
    cache_dir: Annotated[str | None, typer.Option(help="Compiled-program cache directory (default: the user cache directory; '' disables).")] = None,
    profile: Annotated[str, typer.Option(help="Delegate profile deciding which ops run on the GPU.")] = "gpu-current",
    atol: Annotated[float | None, typer.Option(help="Absolute tolerance: an element passes within atol + rtol x the output's largest |reference| (default per precision: fp32 1e-5, fp16 1e-3).")] = None,
    rtol: Annotated[float | None, typer.Option(help="Tolerance relative to the output's largest |reference| (default per precision: fp32 1e-3, fp16 3e-2).")] = None,
    output_tolerance: Annotated[list[str] | None, typer.Option(help="Per-output override NAME_OR_INDEX=ATOL,RTOL (repeatable).")] = None,
    localize: Annotated[bool, typer.Option("--localize", help="On failure, name the first op whose output diverges.")] = False,
    against: Annotated[str | None, typer.Option(help="Compare with this original model instead of MODEL on the reference interpreter.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the random inputs.")] = 0,
    max_memory: Annotated[str | None, typer.Option(help="Refuse a model whose tensors would need more than this (reference interpreter + executor storage, worked out from the shapes), e.g. 512M (default 2G).")] = None,
    output_format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.terminal,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
) -> None:
    """Run MODEL on the OpenCL executor (CPU partitions on the reference interpreter) and compare
    its outputs with the reference interpreter. Exit 0 pass, 1 fail, 2 error."""
    from gpucompat.opencl.runtime import PRECISIONS
    from gpucompat.verify.budget import parse_size
    from gpucompat.verify.session import Settings, verify_model

    if precision not in PRECISIONS:
        raise GpucompatError(f"--precision must be one of {', '.join(PRECISIONS)}")
    if backend not in BACKENDS:
        raise GpucompatError(f"--backend must be one of {', '.join(BACKENDS)}")
    if backend == "litert-gpu" and precision != "fp32":
        raise GpucompatError("--backend litert-gpu runs in fp32 only (enforce_f32)")
    default_runs = None if inputs else BACKENDS[backend]
    settings = Settings(runs=runs if runs is not None else default_runs, inputs=inputs, backend=backend, precision=precision, device=device, cache_dir=cache_dir, profile=profile,
                        atol=atol, rtol=rtol, overrides=_overrides(output_tolerance or []), localize=localize,
                        against=against, seed=seed)
    if max_memory is not None:
        settings.max_memory = parse_size(max_memory)
    result = verify_model(model, settings)
    doc = result.record()
    protect = tuple(p for p in (model, against, inputs) if p)
    if output_format is Format.json:
        write_text(json.dumps(doc, indent=2) + "\n", output, protect)
    else:
        from io import StringIO

        from rich.console import Console

        from gpucompat.verify.render import render

        buf = StringIO() if output else None
        console = Console(file=buf, highlight=False, soft_wrap=True) if buf else Console(highlight=False)
        render(console, doc, result.ops_gpu, result.ops_total)
        if buf:
            write_text(buf.getvalue(), output, protect)
    raise typer.Exit(EXIT_CLEAN if result.passed else EXIT_FINDINGS)
