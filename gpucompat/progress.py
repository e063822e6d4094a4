"""Progress for the slow steps (OpenCL program builds, executor runs, a fix's rewrites and
verification, compilations on LiteRT's accelerator): a spinner line on stderr, drawn only when
stderr is a terminal and erased when the step ends, so a pipe or a log file gets nothing extra.

Steps nest: an inner step replaces the line's text while it runs, then the outer text returns.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


class _Line:
    """The one spinner line on the terminal (rich allows one live display at a time) and the stack
    of texts of the steps running inside each other."""

    def __init__(self):
        self.live = None
        self.spinner = None
        self.console = None
        self.texts: list[str] = []

    def push(self, text: str) -> None:
        self.texts.append(text)
        if self.live is None:
            from rich.console import Console
            from rich.live import Live
            from rich.spinner import Spinner

            self.console = Console(stderr=True)
            self.spinner = Spinner("dots", _plain(text, self.console.width))
            self.live = Live(self.spinner, console=self.console, transient=True, refresh_per_second=8)
            self.live.start(refresh=True)  # drawn at once: the step may keep stderr busy (builds silence it)
        else:
            self.show(text)

    def show(self, text: str) -> None:
        self.spinner.update(text=_plain(text, self.console.width))
        self.live.refresh()

    def pop(self) -> None:
        self.texts.pop()
        if self.texts:
            self.show(self.texts[-1])
        else:
            self.live.stop()
            self.live = self.spinner = None


def _plain(text: str, width: int):
    """`text` as it reads (a model's path may hold markup brackets or control characters), cut
    with an ellipsis to fit the terminal's width beside the spinner: a line that wrapped would be
    erased one row short, leaving the old text above the next."""
    from rich.text import Text

    from gpucompat.text import printable

    shown = printable(text)
    room = max(width - 3, 1)  # the spinner's frame and a space, and the last column left free
    return Text(shown if len(shown) <= room else shown[: room - 1] + "…")


_LINE = _Line()


class Step:
    """A running step; `say` changes its text (e.g. "run 3 of 50")."""

    def __init__(self, drawn: bool):
        self.drawn = drawn

    def say(self, text: str) -> None:
        """Show `text` for this step from now on (nothing when nothing is drawn)."""
        if self.drawn:
            _LINE.texts[-1] = text
            _LINE.show(text)


@contextlib.contextmanager
def status(text: str) -> Iterator[Step]:
    """Show `text` with a spinner on stderr while the block runs, when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield Step(False)
        return
    _LINE.push(text)
    try:
        yield Step(True)
    finally:
        _LINE.pop()
