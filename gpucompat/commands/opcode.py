"""`gpucompat opcode 42`: name a builtin op code (the number in the runtime's "op code #42"
warning, the BuiltinOperator enum value) and show how every profile treats it."""

from __future__ import annotations

from typing import Annotated

import typer

from gpucompat.errors import GpucompatError


def opcode(code: Annotated[str, typer.Argument(help="A builtin op code number (42) or name (CONV_2D).")]) -> None:
    """Name an op code and print its support in every delegate profile."""
    from gpucompat.ir import opcodes
    from gpucompat.rules.support import registry

    number = int(code) if code.strip().isdigit() else opcodes.BUILTIN.get(code.strip().upper())
    if number is None or number not in opcodes.NAMES:
        raise GpucompatError(f"{code!r} is not a TFLite builtin op code")
    typer.echo(f"op code #{number} = {opcodes.name(number)}")
    stable = registry.get("litert-mldrift")
    shown = [registry.get(n) for n in registry.names() if n != f"litert-mldrift@{stable.release}"]
    width = max(len(p.label) for p in shown)
    for prof in shown:
        entry = prof.ops.get(number)
        line = describe(entry)
        if prof.release and prof.release != stable.release and entry != stable.ops.get(number):
            line += f"; unlike {stable.release}: {release_difference(entry)}"
        typer.echo(f"  {prof.label:<{width}} {line}")


def release_difference(entry) -> str:
    """What a release's entry does that the stable one does not: its last check's first clause."""
    doc = (entry.checks[-1].__doc__ or "").split(":", 1)[-1]
    return " ".join(doc.split(";")[0].split())


def describe(entry) -> str:
    """One line for a profile's OpSupport entry (None: no parser)."""
    if entry is None:
        return "not supported (no GPU parser: \"Operation is not supported.\")"
    parts = ["supported"]
    if entry.max_version is not None:
        parts.append(f"up to version {entry.max_version}")
    if entry.backends is not None:
        parts.append(f"backends {', '.join(sorted(entry.backends))}")
    if entry.quant_only:
        parts.append("only with quantized ops enabled")
    return ", ".join(parts)
