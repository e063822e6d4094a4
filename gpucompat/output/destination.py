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
    """Call `draw(console)` with a rich Console on stdout, or one recording into `output` (plain
    text, never wrapped, written atomically)."""
    from io import StringIO

    from gpucompat.output.console import console_for

    if not output:
        draw(console_for())
        return
    buf = StringIO()
    draw(console_for(buf))
    write_text(buf.getvalue(), output, protect)
