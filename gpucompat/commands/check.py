"""`gpucompat check`: per-op verdicts, partitions, cost analyses and findings for one or more
models under one or more profiles. Settings come from [tool.gpucompat] (gpucompat/config.py);
flags given on the command line win."""

from __future__ import annotations

import gc
from typing import Annotated

import typer

from gpucompat.commands.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    INPUTS_HELP,
    BackendChoice,
    ConfigFile,
    FailOn,
    GroupBy,
    InputMean,
    InputRange,
    InputStd,
    format_option,
)
from gpucompat.errors import GpucompatError
from gpucompat.output.destination import write_text
from gpucompat.output.renderers import TERMINAL, Kind, emit, say_written
from gpucompat.text import printable


def check(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    profile: Annotated[str | None, typer.Option(help="Delegate profile, or several separated by commas to compare them (default gpu-current).")] = None,
    backend: Annotated[BackendChoice | None, typer.Option(help="GPU backend the delegate ends up on (default cl, or the profile's own: gl for gl-delegate).")] = None,
    max_delegated_partitions: Annotated[int | None, typer.Option(help="Partitions delegated (the runtime default is 1; <= 0 means 1).")] = None,
    no_quant: Annotated[bool | None, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = None,
    output_format: Annotated[str, format_option(Kind.check_report)] = TERMINAL,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
    html: Annotated[str | None, typer.Option(help="Also write the self-contained HTML report to this file.")] = None,
    fail_on: Annotated[FailOn | None, typer.Option(help="Lowest finding severity that makes the exit code 1 (default error).")] = None,
    select: Annotated[str | None, typer.Option(help="Only these rule codes or prefixes, comma-separated (e.g. GPU,PRT101).")] = None,
    ignore: Annotated[str | None, typer.Option(help="Skip these rule codes or prefixes, comma-separated.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Check models in this many processes.")] = 1,
    baseline: Annotated[str | None, typer.Option(help="Only findings not in this baseline file count toward the exit code.")] = None,
    write_baseline: Annotated[str | None, typer.Option(help="Record today's findings in this baseline file.")] = None,
    config: ConfigFile = None,
    inputs: Annotated[str | None, typer.Option(help="Representative inputs, which the reference interpreter runs on for the PREC4xx rules to judge every tensor's range against fp16's: " + INPUTS_HELP + ".")] = None,
    input_range: InputRange = None,
    input_mean: InputMean = None,
    input_std: InputStd = None,
    device_family: Annotated[str | None, typer.Option("--device-family", "--device", help="GPU families to warn for, comma-separated (adreno, mali, apple, webgpu): forms public reports say their runtimes mishandle (DEV6xx, unverified here).")] = None,
    torch_module_names: Annotated[str | None, typer.Option(help="The PyTorch model's named_modules(), one per line (name, then class): ops of a litert-torch export are named by their exact dotted module path.")] = None,
    group_by: Annotated[GroupBy | None, typer.Option(help="source: the terminal lists rejected ops and findings per Keras layer or PyTorch module (JSON always has both: ops[].source, findings[].sources).")] = None,
    confirm: Annotated[bool, typer.Option("--confirm", help="Then compile each model on LiteRT's real GPU accelerator beside the litert-mldrift prediction (gpucompat confirm).")] = False,
) -> None:
    """Report, per op, whether the GPU delegate takes it and why, how the graph is partitioned, and
    what it costs: channel padding, reshape hotspots, CPU<->GPU boundaries, and what accepting
    each rejected op would gain."""
    from gpucompat import baseline as baselines
    from gpucompat import config as configs
    from gpucompat.attribution.torch_names import read_module_names
    from gpucompat.discover import model_paths
    from gpucompat.image_inputs import normalization_from_flags
    from gpucompat.output import records
    from gpucompat.pipeline import Task, check_many
    from gpucompat.rules.lint import SEVERITIES
    from gpucompat.rules.lint.device_reports.families import parse_families
    from gpucompat.rules.support import registry

    # a command-line run ends with this command: the cyclic collector stays off, so that no full
    # collection walks the models' objects (pipeline.check_many collects between models itself)
    gc.disable()
    files = model_paths(paths)
    normalization = normalization_from_flags(input_mean, input_std, input_range, inputs)
    if confirm and (output_format != TERMINAL or output):
        raise GpucompatError("--confirm prints to the terminal; for JSON or a file run gpucompat confirm --format json")
    module_names = read_module_names(torch_module_names) if torch_module_names else None
    cfg = configs.settings("check", files[0] if files else ".", config)
    profiles = _split(cfg.pick("profile", profile, registry.DEFAULT))
    asked_backend = cfg.pick("backend", backend.value if backend else None)
    backends = {name: registry.backend_for(name, asked_backend) for name in profiles}
    for name in profiles:
        registry.get_with_backend(name, backends[name])
    level = cfg.pick("fail_on", fail_on.value if fail_on else None, "error")
    chosen_select = _codes(select, "--select") if select else cfg.pick("select", None, ())
    extra_ignore = _codes(ignore, "--ignore") if ignore else ()
    families = parse_families(device_family, "--device-family") if device_family else cfg.pick("device_family", None, ())
    tasks = [Task(path, name, backends[name], allow_quant=not cfg.pick("no_quant", no_quant, False),
                  max_delegated_partitions=cfg.pick("max_delegated_partitions", max_delegated_partitions, 1),
                  select=chosen_select, ignore=cfg.ignored_for(path, extra_ignore), inputs=inputs,
                  normalization=normalization, device_families=families, module_names=module_names)
             for path in files for name in profiles]
    recs = check_many(tasks, jobs)
    if baseline:
        baselines.apply(baseline, recs)
    if write_baseline:
        write_text(baselines.render(write_baseline, recs), write_baseline, protect=tuple(files))
    threshold = None if level == "never" else SEVERITIES.index(level)
    status = EXIT_ERROR if any(r["error"] for r in recs) else EXIT_CLEAN
    if status == EXIT_CLEAN and threshold is not None and any(
            SEVERITIES.index(f["severity"]) <= threshold and not f["baselined"] for r in recs for f in r["findings"]):
        status = EXIT_FINDINGS
    doc = records.document(recs, compare=len(profiles) > 1)
    view = {"group_by": group_by.value} if group_by and output_format == TERMINAL else {}
    emit(Kind.check_report, output_format, doc, output, protect=tuple(files), **view)
    # whatever the format, a model that could not be checked is one line on stderr (once, whatever
    # the number of profiles)
    for path, error in dict.fromkeys((r["path"], r["error"]) for r in recs if r["error"]):
        typer.echo(printable(f"gpucompat: {path}: {error}"), err=True)
    if html:
        emit(Kind.check_report, "html", doc, html, protect=tuple(files))
    if status != EXIT_ERROR:
        say_written(output, output_format)
        say_written(html, "html")
        say_written(write_baseline, "baseline")
    if confirm:
        from gpucompat.commands.confirm import after_check

        status = after_check(files, status, config)
    raise typer.Exit(status)


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _codes(value: str, option: str) -> tuple[str, ...]:
    """The rule codes or prefixes of --select / --ignore; an unknown one is a usage error (exit 2)."""
    from gpucompat.config import known_codes

    try:
        return known_codes(tuple(c.upper() for c in _split(value)), option)
    except GpucompatError as e:
        raise typer.BadParameter(str(e).removeprefix(f"{option}: "), param_hint=option) from None

