"""Native libraries' own output kept off the user's screen: their log lines go to file descriptor 2
(PoCL's compiler, the interpreter's "INFO: Created TensorFlow Lite XNNPACK delegate"), where a
command's errors are one line and failures arrive as exceptions."""

from __future__ import annotations

import contextlib
import os
import sys
import threading


class Shared:
    """A setting held while any thread is inside it: the first to enter makes it, the last to leave
    undoes it (programs are built in parallel threads, and a process has one stderr and one
    warnings filter: nested save-and-restore from several threads would restore the wrong one)."""

    def __init__(self, make, undo):
        self.make, self.undo = make, undo
        self.lock = threading.Lock()
        self.depth = 0
        self.saved = None

    @contextlib.contextmanager
    def __call__(self):
        with self.lock:
            if self.depth == 0:
                self.saved = self.make()
            self.depth += 1
        try:
            yield
        finally:
            with self.lock:
                self.depth -= 1
                if self.depth == 0:
                    self.undo(self.saved)


def _silence_stderr() -> int:
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    return saved


def _restore_stderr(saved: int) -> None:
    os.dup2(saved, 2)
    os.close(saved)


native_stderr_silenced = Shared(_silence_stderr, _restore_stderr)
