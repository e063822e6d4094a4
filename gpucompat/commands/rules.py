"""`gpucompat rules` and `gpucompat explain CODE`: the rule registry and each rule's docs."""

from __future__ import annotations

from typing import Annotated

import typer

from gpucompat.errors import GpucompatError


def rules() -> None:
    """List every rule: code, name, default severity, fix, summary."""
    from gpucompat.rules.lint import all_rules

    for r in all_rules():
        fix = f"  [fix: {r.fix}]" if r.fix else ""
        typer.echo(f"{r.code:<8} {r.name:<26} {r.severity:<8} {r.summary}{fix}")


def explain(code: Annotated[str, typer.Argument(help="A rule code (GPU001) or name (unsupported-op).")]) -> None:
    """Print one rule's documentation: rendered on a terminal, as its markdown source on a pipe
    (lossless, for a file or another tool)."""
    from gpucompat.attribution import hints
    from gpucompat.output.console import console_for
    from gpucompat.rules.lint import find_rule

    rule = find_rule(code)
    if rule is None:
        raise GpucompatError(f"no rule {code!r} (see `gpucompat rules`)")
    text = f"# {rule.code} {rule.name} ({rule.severity})\n\n{rule.summary}\n\n{rule.doc.rstrip()}"
    if rule.code == hints.RULE:
        text += "\n\n" + hints.markdown()
    console = console_for()
    if not console.is_terminal:
        typer.echo(text)
        return
    from rich.markdown import Markdown

    console.print(Markdown(text))
