"""`gpucompat verify`: compare hybrid execution (GPU partitions on the included OpenCL executor)
with the reference interpreter, like TFLite's inference_diff, with pass/fail thresholds."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Annotated

import typer

from gpucompat.commands.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    INPUTS_HELP,
    ConfigFile,
    InputMean,
    InputRange,
    InputStd,
    format_option,
)
from gpucompat.errors import GpucompatError
from gpucompat.output.renderers import TERMINAL, Kind, emit, say_written
from gpucompat.runners import OPENCL, RUNNERS, named, verify_choices

RUNNER_HELP = (f"Who runs MODEL against the reference interpreter (default {OPENCL.name}): " + "; ".join(
    f"{name} ({RUNNERS[name].about}; {RUNNERS[name].default_runs} runs by default)" for name in verify_choices()) + ".")
DEPRECATED_BACKEND = ("gpucompat verify: --backend is deprecated here, use --runner (--backend names the "
                      "delegate's API, cl|gl|metal, in the other commands)")


def _overrides(specs: list[str]) -> dict:
    from gpucompat.verification.tolerance import Tolerance

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


def _runner_name(cfg, runner: str | None, backend: str | None) -> str:
    """--runner, else the config file's runner, else opencl; the old spelling `backend` (flag or
    file key) still counts, with a one-line note on stderr."""
    if runner is None and backend is None:  # the file's runner, or its old key
        runner = cfg.pick("runner")
        backend = None if runner else cfg.pick("backend")
    if backend is not None:
        print(DEPRECATED_BACKEND, file=sys.stderr)
    return runner or backend or OPENCL.name


def verify(
    model: Annotated[str, typer.Argument(help="The .tflite model to run.")],
    runs: Annotated[int | None, typer.Option(help="Number of runs with seeded random inputs (the runner's default: see --runner).")] = None,
    inputs: Annotated[str | None, typer.Option(help="Run on these inputs instead of random ones, one run per sample: " + INPUTS_HELP + ".")] = None,
    input_range: InputRange = None,
    input_mean: InputMean = None,
    input_std: InputStd = None,
    runner: Annotated[str | None, typer.Option(help=RUNNER_HELP)] = None,
    backend: Annotated[str | None, typer.Option(help="Deprecated spelling of --runner.", hidden=True)] = None,
    precision: Annotated[str | None, typer.Option(help="Precision: fp32 (default), or fp16 (executor: half storage, float arithmetic; the real accelerator: its default).")] = None,
    device: Annotated[str | None, typer.Option(help="OpenCL device: index or part of its name (default: a GPU, else PoCL).")] = None,
    cache_dir: Annotated[str | None, typer.Option(help="Compiled-program cache directory (default: the user cache directory; '' disables).")] = None,
    profile: Annotated[str | None, typer.Option(help="Delegate profile deciding which ops run on the GPU (default gpu-current).")] = None,
    atol: Annotated[float | None, typer.Option(help="Absolute tolerance: an element passes within atol + rtol x the output's largest |reference| (default per precision: fp32 1e-5, fp16 1e-4).")] = None,
    rtol: Annotated[float | None, typer.Option(help="Tolerance relative to the output's largest |reference| (default per precision: fp32 1e-3, fp16 1e-2).")] = None,
    output_tolerance: Annotated[list[str] | None, typer.Option(help="Per-output override NAME_OR_INDEX=ATOL,RTOL (repeatable).")] = None,
    allow_class_flips: Annotated[bool | None, typer.Option("--allow-class-flips", help="At fp16, report a changed top class of a classifier-like output instead of failing on it.")] = None,
    localize: Annotated[bool | None, typer.Option("--localize", help="On failure, name the first op whose output diverges.")] = None,
    against: Annotated[str | None, typer.Option(help="Compare with this original model instead of MODEL on the reference interpreter.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the random inputs (default 0).")] = None,
    max_memory: Annotated[str | None, typer.Option(help="Refuse a model whose tensors would need more than this (reference interpreter + executor storage, worked out from the shapes), e.g. 512M (default 2G).")] = None,
    signature: Annotated[str | None, typer.Option(help="Run this signature (an LLM export's prefill_8, decode, ...); default: every signature of a model whose signatures run different subgraphs, each named, else the main subgraph.")] = None,
    output_format: Annotated[str, format_option(Kind.verify_result)] = TERMINAL,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
    config: ConfigFile = None,
) -> None:
    """Run MODEL on the OpenCL executor (CPU partitions on the reference interpreter) and compare
    its outputs with the reference interpreter. Exit 0 pass, 1 fail, 2 error."""
    from gpucompat import config as configs
    from gpucompat.image_inputs import normalization_from_flags
    from gpucompat.opencl.runtime import PRECISIONS
    from gpucompat.rules.support import registry
    from gpucompat.verification.budget import parse_size
    from gpucompat.verification.session import Settings, by_signature, signatures_to_run, verify_model
    from gpucompat.verification.tolerance import Tolerance

    cfg = configs.settings("verify", model, config)
    chosen = named(_runner_name(cfg, runner, backend), "--runner", verify_choices())
    precision = cfg.pick("precision", precision, "fp32")
    overrides = (_overrides(output_tolerance) if output_tolerance
                 else {k: Tolerance(*v) for k, v in cfg.pick("output_tolerance", None, {}).items()})
    max_memory = cfg.pick("max_memory", max_memory)
    if precision not in PRECISIONS:
        raise GpucompatError(f"--precision must be one of {', '.join(PRECISIONS)}")
    settings = Settings(runs=cfg.pick("runs", runs, chosen.default_runs), runner=chosen.name, precision=precision,
                        device=cfg.pick("device", device), cache_dir=cfg.pick("cache_dir", cache_dir),
                        profile=cfg.profile(profile, registry.DEFAULT), atol=cfg.pick("atol", atol),
                        rtol=cfg.pick("rtol", rtol), overrides=overrides, localize=cfg.pick("localize", localize, False),
                        allow_class_flips=cfg.pick("allow_class_flips", allow_class_flips, False),
                        against=against, seed=cfg.pick("seed", seed, 0), inputs=inputs,
                        normalization=normalization_from_flags(input_mean, input_std, input_range, inputs),
                        signature=signature)
    if max_memory is not None:
        settings.max_memory = parse_size(max_memory)
    results = [verify_model(model, replace(settings, signature=name)) for name in signatures_to_run(model, settings)]
    protect = tuple(p for p in (model, against) if p)
    if len(results) == 1:
        emit(Kind.verify_result, output_format, results[0].record(), output, protect,
             ops_gpu=results[0].ops_gpu, ops_total=results[0].ops_total)
    else:
        emit(Kind.verify_result, output_format, by_signature(model, results), output, protect,
             ops=[(r.ops_gpu, r.ops_total) for r in results])
    say_written(output, output_format)
    raise typer.Exit(EXIT_CLEAN if all(r.passed for r in results) else EXIT_FINDINGS)

