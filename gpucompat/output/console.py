"""The rich Console every command prints through: a terminal's own width on a TTY, and no width at
all on a pipe or in a file, so that a CI log keeps each sentence on one line and each table
at its natural width (rich would otherwise wrap everything at 80 columns)."""

from __future__ import annotations

from typing import IO

from rich.console import Console

# The width a Console gets when nothing reads it on a terminal: wide enough that no line and no
# table is ever cut, whatever a model's names are (rich needs a number to lay tables out).
UNBOUNDED = 1_000_000


def console_for(file: IO[str] | None = None) -> Console:
    """A Console writing to `file` (stdout by default): on a terminal, wrapped at its width and in
    colour; anywhere else plain and never wrapped (COLUMNS is ignored there: a log has no width)."""
    console = Console(file=file, highlight=False)
    if console.is_terminal:
        return console
    return Console(file=file, highlight=False, soft_wrap=True, width=UNBOUNDED)
