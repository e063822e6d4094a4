"""`gpucompat confirm`: compile models with LiteRT's real GPU accelerator (GPU + CPU accelerators,
no inference) in a child process and print what it did beside the `litert-mldrift` prediction,
flagging every disagreement. Exit codes: 0 all agree, 1 a disagreement, 2 no usable Vulkan
device, a bad model file or another error."""

from __future__ import annotations

import enum
import json
from typing import Annotated

import typer

from gpucompat.commands.common import EXIT_CLEAN, EXIT_FINDINGS, ConfigFile, write_text


class ConfirmFormat(str, enum.Enum):
    terminal = "terminal"
    json = "json"


def confirm(
    paths: Annotated[list[str], typer.Argument(help="Model files, directories (searched for *.tflite) or glob patterns.")],
    output_format: Annotated[ConfirmFormat, typer.Option("--format", help="Output format.")] = ConfirmFormat.terminal,
    output: Annotated[str | None, typer.Option(help="Write the output to this file (atomically) instead of stdout.")] = None,
    vulkan_dir: Annotated[str | None, typer.Option(help="Directory whose env.sh ('export K=V' lines) names the Vulkan driver (default $GPUCOMPAT_VULKAN_DIR or ~/.cache/gpucompat-oracle when present).")] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds one model may take to compile before it is given up (default 120).")] = None,
    config: ConfigFile = None,
) -> None:
    """Compile each model with LiteRT's own GPU accelerator and show, beside the litert-mldrift
    prediction: whether it compiles and why not, GPU ops per subgraph, full delegation, the op
    types the runtime rejects with its reasons, and the dynamic-tensor gate."""
    from gpucompat import config as configs
    from gpucompat.discover import model_paths

    files = model_paths(paths)
    cfg = configs.settings("confirm", files[0] if files else ".", config)
    results = run(files, cfg.pick("vulkan_dir", vulkan_dir), cfg.pick("timeout", timeout, 120.0))
    if output_format is ConfirmFormat.json:
        write_text(json.dumps(document(results), indent=2) + "\n", output, protect=tuple(files))
    else:
        write_text(terminal(results), output, protect=tuple(files))
    raise typer.Exit(EXIT_FINDINGS if any(c.disagreements for c in results) else EXIT_CLEAN)


def after_check(files: list[str], status: int, config: str | None = None) -> int:
    """`check --confirm`: print the confirmation after check's own output (with confirm's settings
    from [tool.gpucompat]); a disagreement makes a clean exit status 1."""
    from gpucompat import config as configs

    cfg = configs.settings("confirm", files[0] if files else ".", config)
    results = run(files, cfg.pick("vulkan_dir"), cfg.pick("timeout", None, 120.0))
    typer.echo(terminal(results), nl=False)
    if status == EXIT_CLEAN and any(c.disagreements for c in results):
        return EXIT_FINDINGS
    return status


def run(files: list[str], vulkan_dir: str | None = None, timeout: float = 120.0) -> list:
    """Confirmations of `files` (gpucompat.confirm.compare.Confirmation), one per file."""
    from gpucompat.confirm import compare, runner

    return compare.confirm(files, runner.launcher(vulkan_dir), timeout)


def document(results: list) -> dict:
    """The JSON document: the runtime used and one record per model."""
    from gpucompat import __version__
    from gpucompat.confirm import compare

    first = results[0].runtime if results else None
    return {"schema_version": 1, "tool": f"gpucompat {__version__}",
            "runtime": {"litert": first.litert if first else None, "device": first.facts.adapter if first else None},
            "models": [compare.record(c) for c in results]}


def terminal(results: list) -> str:
    """Both sides per model as a table, disagreements marked, then the runtime's reasons."""
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    from gpucompat.confirm.compare import yes_no as _yes

    buf = StringIO()
    console = Console(file=buf, highlight=False, soft_wrap=True, width=120)
    for c in results:
        real, ours = c.observed, c.predicted
        console.print(f"[bold]{c.path}[/bold]  LiteRT {c.runtime.litert or '?'} GPU accelerator on "
                      f"{c.runtime.facts.adapter or 'an unnamed device'}")
        table = Table(show_edge=False, pad_edge=False)
        for name in ("", "runtime", "litert-mldrift", ""):
            table.add_column(name)
        rows = [("compiles", _yes(real.compiles), _yes(ours.compiles)),
                ("GPU ops per subgraph", _counts(real.gpu_ops), _counts(ours.gpu_ops)),
                ("fully delegated", _yes(real.fully_delegated), _yes(ours.fully_delegated)),
                ("rejected op types", ", ".join(sorted(real.rejected)) or "-", ", ".join(sorted(ours.rejected)) or "-"),
                ("dynamic-tensor gate", _yes(real.dynamic_gate), _yes(ours.dynamic_gate))]
        for label, a, b in rows:
            flagged = any(d.startswith(_topic(label)) for d in c.disagreements)
            table.add_row(label, a, b, "[red]differs[/red]" if flagged else "")
        console.print(table)
        if real.failure:
            console.print(f"  runtime: {real.failure}")
        if ours.failure:
            console.print(f"  predicted: {ours.failure}")
        for op in sorted(real.rejected):
            console.print(f"  runtime rejects {op}: {'; '.join(r or '(no reason given)' for r in real.rejected[op])}")
        for d in c.disagreements:
            console.print(f"  [red]disagreement[/red] {d}")
        console.print()
    agree = sum(1 for c in results if not c.disagreements)
    console.print(f"{agree} of {len(results)} model(s): the runtime and litert-mldrift agree")
    return buf.getvalue()


def _topic(label: str) -> str:
    """The words a disagreement about this row starts with (gpucompat.confirm.compare.disagreements)."""
    return {"GPU ops per subgraph": "GPU ops", "rejected op types": "rejected op"}.get(label, label)


def _counts(per_subgraph: dict[int, int]) -> str:
    return ", ".join(f"{s}: {n}" for s, n in sorted(per_subgraph.items())) or "none"
