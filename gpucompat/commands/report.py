"""`gpucompat report`: the self-contained HTML compatibility report of one or more models."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_ERROR, BackendChoice, ConfigFile
from gpucompat.text import printable


def report(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    output: Annotated[str, typer.Option("--output", "-o", help="The HTML file to write (atomically).")],
    after: Annotated[str | None, typer.Option(help="A rewritten version of the model (from `gpucompat fix`), shown before/after.")] = None,
    fix: Annotated[str | None, typer.Option(help="The result of `gpucompat fix --format json` for one of the models, to show with it.")] = None,
    verify: Annotated[str | None, typer.Option(help="The result of `gpucompat verify --format json` for one of the models (or its --after), to show with it.")] = None,
    profile: Annotated[str | None, typer.Option(help="Delegate profile (gpu-current, litert-mldrift, ...; default gpu-current).")] = None,
    backend: Annotated[BackendChoice | None, typer.Option(help="GPU backend the delegate ends up on (default cl, or the profile's own: gl for gl-delegate).")] = None,
    max_delegated_partitions: Annotated[int | None, typer.Option(help="Partitions delegated (the runtime default is 1; <= 0 means 1).")] = None,
    no_quant: Annotated[bool | None, typer.Option("--no-quant", help="Quantized ops off, as in the legacy OpenGL delegate.")] = None,
    config: ConfigFile = None,
) -> None:
    """Write a self-contained HTML page: where each op runs and why, the partitions, the costs and
    the findings."""
    from gpucompat import config as configs
    from gpucompat.discover import model_paths
    from gpucompat.output import records as documents
    from gpucompat.output.renderers import Kind, emit
    from gpucompat.pipeline import Task, check_many
    from gpucompat.rules.support import registry

    files = model_paths(paths)
    cfg = configs.settings("report", files[0] if files else ".", config)
    profile = cfg.profile(profile, registry.DEFAULT)
    chosen_backend = registry.backend_for(profile, cfg.pick("backend", backend.value if backend else None))
    registry.get_with_backend(profile, chosen_backend)
    allow_quant = not cfg.pick("no_quant", no_quant, False)
    partitions = cfg.pick("max_delegated_partitions", max_delegated_partitions, 1)

    def records(files: list[str]) -> list[dict]:
        return check_many([Task(p, profile, chosen_backend, allow_quant, partitions) for p in files])

    recs = records(files)
    later = records(model_paths([after])) if after else None
    for key, file, field in (("fix", fix, "path"), ("verify", verify, "model")):
        if file:
            _attach(recs, later, key, file, field)
    errors = [rec for rec in recs if rec["error"]]
    for rec in errors:  # one line each and exit 2, as check does
        typer.echo(printable(f"gpucompat: {rec['path']}: {rec['error']}"), err=True)
    if len(errors) == len(recs):  # a page of errors only: nothing worth writing (and no "wrote" line)
        raise typer.Exit(EXIT_ERROR)
    emit(Kind.check_report, "html", documents.document(recs), output, tuple(files) + ((after,) if after else ()),
         after=documents.document(later) if later else None)
    # the page shows the models that could not be checked too, each under its name
    typer.echo(f"wrote {output}" + (f" ({len(errors)} of {len(recs)} models could not be checked)" if errors else ""))
    if errors:
        raise typer.Exit(EXIT_ERROR)


# The fields of `gpucompat fix --format json` and `gpucompat verify --format json` the page shows
_FIELDS = {"fix": ("path", "profile", "applied", "not_applied", "before", "after", "verification", "output"),
           "verify": ("model", "precision", "runs", "inputs", "device", "reference", "test", "outputs", "passed",
                      "first_divergent_op")}


def _attach(recs: list[dict], later: list[dict] | None, key: str, file: str, field: str) -> None:
    """Put the JSON result in `file` under `key` of the record of the model it is about (the model
    itself or its --after version, matched by absolute path)."""
    from gpucompat.errors import GpucompatError

    try:
        with open(file, encoding="utf-8") as f:
            doc = json.load(f)
        target = os.path.abspath(doc[field])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise GpucompatError(f"{file}: not a gpucompat {key} JSON result ({type(e).__name__}: {e})") from None
    missing = [k for k in _FIELDS[key] if k not in doc]
    if missing:  # the page draws these (reports/templates/sections.j2)
        raise GpucompatError(f"{file}: not a gpucompat {key} JSON result (no {', '.join(map(repr, missing))})")
    for i, rec in enumerate(recs):
        paired = later[i]["path"] if later and i < len(later) else None
        if target in {os.path.abspath(p) for p in (rec["path"], paired) if p}:
            rec[key] = doc
            return
    raise GpucompatError(f"{file}: it is about {doc[field]}, which is not among the reported models")
