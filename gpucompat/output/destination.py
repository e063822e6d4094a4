"""Where a renderer's text goes: stdout, or a file written atomically (never over an input)."""

from __future__ import annotations

import sys
from collections.abc import Callable


def write_text(text: str, output: str | None, protect: tuple[str, ...] = ()) -> None:
    """Print `text`, or write it atomically to `output` (never over one of `protect`)."""
    if output:
        from gpucompat.ir.writer import write_atomic

        write_atomic(text.encode(), output, protect=protect)
    else:
        sys.stdout.write(text)


def write_rich(draw: Callable, output: str | None, protect: tuple[str, ...] = ()) -> None:
    """Call `draw(console)` with a rich Console on the terminal, or one recording into `output`
    (plain text, written atomically)."""
    from io import StringIO

    from rich.console import Console

    if not output:
        draw(Console(highlight=False))
        return
    buf = StringIO()
    draw(Console(file=buf, highlight=False, soft_wrap=True))
    write_text(buf.getvalue(), output, protect)
