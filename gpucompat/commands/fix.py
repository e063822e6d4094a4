"""`gpucompat fix`: rewrite a model so more of it runs on the GPU, prove it, write it."""

from __future__ import annotations

from typing import Annotated

import typer

from gpucompat.commands import common
from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, BackendChoice, ConfigFile, FailOn, format_option
from gpucompat.errors import GpucompatError
from gpucompat.output.renderers import TERMINAL, Kind, emit
from gpucompat.runners import OPENCL, RUNNERS, named, on_request

VERIFY_ON_HELP = ("Also verify on this runner: " + "; ".join(f"{name} ({RUNNERS[name].about})" for name in on_request())
                  + " (automatic with --profile litert-mldrift; 'not run' without its device).")


def _names(value: str | None) -> list[str] | None:
    return [n.strip() for n in value.split(",") if n.strip()] if value else None


def _input_shapes(values: list[str] | None) -> dict[str, tuple[int, ...]] | None:
    """--input-shape NAME=1,224,224,3 (repeatable) as {name: shape}."""
    if not values:
        return None
    shapes = {}
    for value in values:
        name, sep, dims = value.rpartition("=")
        try:
            shape = tuple(int(d) for d in dims.split(","))
        except ValueError:
            shape = ()
        if not sep or not name or not shape:
            raise GpucompatError(f"--input-shape {value!r}: expected NAME=d0,d1,... (e.g. input=1,224,224,3)")
        shapes[name] = shape
    return shapes


def fix(
    path: Annotated[str, typer.Argument(help="The .tflite model to fix.")],
    output: Annotated[str | None, typer.Option("--output", "-o", help="Where to write the fixed model.")] = None,
    rewrite: Annotated[str | None, typer.Option(help="Only these rewrites (comma-separated).")] = None,
    skip: Annotated[str | None, typer.Option(help="Skip these rewrites (comma-separated).")] = None,
    unsafe_fixes: Annotated[bool | None, typer.Option("--unsafe-fixes", help="Allow rewrites that change the model's inputs or outputs (freeze-shapes, rgb-to-rgba).")] = None,
    input_shape: Annotated[list[str] | None, typer.Option("--input-shape", help="Freeze input NAME to a static shape: NAME=1,224,224,3 (repeatable; allows freeze-shapes).")] = None,
    profile: Annotated[str | None, typer.Option(help="Delegate profile the fix aims at (default gpu-current).")] = None,
    backend: Annotated[BackendChoice | None, typer.Option(help="GPU backend the delegate ends up on (default cl, or the profile's own: gl for gl-delegate).")] = None,
    max_delegated_partitions: Annotated[int | None, typer.Option(help="Partitions delegated (the runtime default is 1).")] = None,
    no_quant: Annotated[bool | None, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would change; verify and write nothing.")] = False,
    inputs: Annotated[str | None, typer.Option(help="Verify on these inputs instead of seeded random ones: " + common.INPUTS_HELP + ".")] = None,
    input_range: common.InputRange = None,
    input_mean: common.InputMean = None,
    input_std: common.InputStd = None,
    no_verify: Annotated[bool | None, typer.Option("--no-verify", help="Skip the numerical verification.")] = None,
    verify_on: Annotated[str | None, typer.Option(help=VERIFY_ON_HELP)] = None,
    require_gpu_proof: Annotated[bool | None, typer.Option("--require-gpu-proof", help="Exit 1 and write nothing when the real GPU did not check the output in this run (it runs there when a Vulkan device is present) and some op it delegates has a form known wrong or never measured there.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Allow writing over the input model.")] = False,
    output_format: Annotated[str, format_option(Kind.fix_result, "What fix prints (the fixed model goes to --output).")] = TERMINAL,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also list every candidate a rewrite left alone, and why.")] = False,
    fail_on: Annotated[FailOn | None, typer.Option(help="Exit 1 when findings of this severity remain after the fix (default never).")] = None,
    config: ConfigFile = None,
) -> None:
    """Rewrite MODEL so the GPU delegate takes more of it, verify the outputs, write the result."""
    from gpucompat import config as configs
    from gpucompat import ir
    from gpucompat import rewrites as catalogue
    from gpucompat.fixing import run
    from gpucompat.image_inputs import normalization_from_flags
    from gpucompat.output import fix_view
    from gpucompat.rules.lint import SEVERITIES, run_all
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    asked = (named(verify_on, "--verify-on", on_request()),) if verify_on else ()
    if output is None and not dry_run:
        if not in_place:
            raise GpucompatError("fix needs --output/-o (or --in-place to overwrite the model, or --dry-run)")
        output = path
    cfg = configs.settings("fix", path, config)
    profile = cfg.profile(profile, registry.DEFAULT)
    chosen_backend = registry.backend_for(profile, cfg.pick("backend", backend.value if backend else None))
    prof = registry.get_with_backend(profile, chosen_backend)
    options = Options(allow_quant=not cfg.pick("no_quant", no_quant, False), backend=chosen_backend,
                      max_delegated_partitions=cfg.pick("max_delegated_partitions", max_delegated_partitions, 1))
    chosen = catalogue.select(cfg.pick("rewrite", _names(rewrite)), cfg.pick("skip", _names(skip)),
                              cfg.pick("unsafe_fixes", unsafe_fixes, False), _input_shapes(input_shape))
    level = cfg.pick("fail_on", fail_on.value if fail_on else None, "never")
    normalization = normalization_from_flags(input_mean, input_std, input_range, inputs)
    verify = not dry_run and not cfg.pick("no_verify", no_verify, False)
    require_gpu_proof = cfg.pick("require_gpu_proof", require_gpu_proof, False)
    if verify:
        OPENCL.start()  # the executor proves every fix: its device's probe overlaps with the rewriting
    result = run.fix_file(path, chosen, prof, options,
                          verify and run.accelerator_asked(prof, asked, require_gpu_proof))
    if inputs:
        from gpucompat.sample_inputs import load

        samples = load(inputs, ir.from_bytes(result.original, path), normalization)
        result.samples, result.inputs_described = samples.values, samples.description
    status = EXIT_CLEAN
    if not dry_run and not run.prove_and_write(result, chosen, output, in_place, verify, asked=asked,
                                               require_gpu_proof=require_gpu_proof):
        status = EXIT_FINDINGS
    if status == EXIT_CLEAN and level != "never":
        threshold = SEVERITIES.index(level)
        if any(SEVERITIES.index(f.severity) <= threshold for f in run_all(result.after)):
            status = EXIT_FINDINGS
    emit(Kind.fix_result, output_format, fix_view.document(result), verbose=verbose)
    raise typer.Exit(status)
