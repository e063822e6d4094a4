"""Where a renderer's text goes: stdout, or a file written atomically (never over an input)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable


def write_text(text: str, output: str | None, protect: tuple[str, ...] = ()) -> None:
    """Print `text`, or write it atomically to `output` (never over one of `protect`)."""
    if output:
        from gpucompat.ir.writer import write_atomic

        write_atomic(text.encode(), output, protect=protect)
    else:
        sys.stdout.write(text)


def write_json(value, output: str | None, protect: tuple[str, ...] = ()) -> None:
    """Write `value` as indented JSON to stdout, or atomically to `output`, as it is encoded
    (gpucompat/output/json_stream.py): no whole-document string is ever held."""
    from gpucompat.output.json_stream import lines

    write_pieces(lines(value), output, protect)


def write_pieces(pieces: Iterable[str], output: str | None, protect: tuple[str, ...] = ()) -> None:
    """Write text that arrives in pieces to stdout, or atomically to `output`."""
    if not output:
        write = sys.stdout.write
        for piece in pieces:
            write(piece)
        return
    from gpucompat.ir.writer import write_atomic

    def stream(f) -> None:
        buffered = []
        size = 0
        for piece in pieces:
            buffered.append(piece)
            size += len(piece)
            if size > 1 << 16:
                f.write("".join(buffered).encode())
                buffered, size = [], 0
        f.write("".join(buffered).encode())

    write_atomic(stream, output, protect=protect)


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
