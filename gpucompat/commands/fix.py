"""`gpucompat fix`: rewrite a model so more of it runs on the GPU, prove it, write it."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, BackendChoice, FailOn, Format
from gpucompat.errors import GpucompatError


def _names(value: str | None) -> list[str] | None:
    return [n.strip() for n in value.split(",") if n.strip()] if value else None


def fix(
    path: Annotated[str, typer.Argument(help="The .tflite model to fix.")],
    output: Annotated[str | None, typer.Option("--output", "-o", help="Where to write the fixed model.")] = None,
    rewrite: Annotated[str | None, typer.Option(help="Only these rewrites (comma-separated).")] = None,
    skip: Annotated[str | None, typer.Option(help="Skip these rewrites (comma-separated).")] = None,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="Allow rewrites that change the model's inputs or outputs (rgb-to-rgba).")] = False,
    profile: Annotated[str, typer.Option(help="Delegate profile the fix aims at.")] = "gpu-current",
    backend: Annotated[BackendChoice, typer.Option(help="GPU backend the delegate ends up on.")] = BackendChoice.cl,
    max_delegated_partitions: Annotated[int, typer.Option(help="Partitions delegated (the runtime default is 1).")] = 1,
    no_quant: Annotated[bool, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would change; verify and write nothing.")] = False,
    no_verify: Annotated[bool, typer.Option("--no-verify", help="Skip the numerical verification.")] = False,
    inputs: Annotated[str | None, typer.Option("--inputs", help="Verify on these input samples: a .npz file with one array per input, keyed by input name or index, the first axis counting samples (default: two seeded random sets).")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Allow writing over the input model.")] = False,
    output_format: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.terminal,
    fail_on: Annotated[FailOn, typer.Option(help="Exit 1 when findings of this severity remain after the fix.")] = FailOn.never,
) -> None:
    """Rewrite MODEL so the GPU delegate takes more of it, verify the outputs, write the result."""
    from gpucompat import rewrites as catalogue
    from gpucompat.fixing import report, run
    from gpucompat.rules import registry
    from gpucompat.rules.lint import SEVERITIES, run_all
    from gpucompat.rules.profile import Options

    if output is None and not dry_run:
        if not in_place:
            raise GpucompatError("fix needs --output/-o (or --in-place to overwrite the model, or --dry-run)")
        output = path
    prof = registry.get(profile)
    if backend.value not in prof.backends:
        raise GpucompatError(f"profile {profile} has no {backend.value} backend (it has: {', '.join(prof.backends)})")
    options = Options(allow_quant=not no_quant, backend=backend.value, max_delegated_partitions=max_delegated_partitions)
    chosen = catalogue.select(_names(rewrite), _names(skip), unsafe_fixes)
    result = run.fix_file(path, chosen, prof, options)
    status = EXIT_CLEAN
    if not dry_run:
        if not no_verify and run.verify_fix(result, inputs) is not None and not result.verification.ok:
            result.failing_rewrites = run.blame(result, chosen, prof, options, inputs)
            status = EXIT_FINDINGS
        elif output is not None and (result.changed or output != path):
            run.write_fix(result, output, in_place)
    if status == EXIT_CLEAN and fail_on is not FailOn.never:
        threshold = SEVERITIES.index(fail_on.value)
        if any(SEVERITIES.index(f.severity) <= threshold for f in run_all(result.after)):
            status = EXIT_FINDINGS
    doc = report.document(result)
    if output_format is Format.json:
        typer.echo(json.dumps(doc, indent=2))
    else:
        from rich.console import Console

        report.render(Console(highlight=False, soft_wrap=True), doc)
    raise typer.Exit(status)
