"""Run the installed `gpucompat` command the way a user does."""

import subprocess
import sys
import tempfile


def gpucompat(*args: str, cwd: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m gpucompat ARGS` in a child process and capture its output.

    It runs outside the source tree by default, as a user would, so that the installed package is
    what gets tested."""
    return subprocess.run([sys.executable, "-m", "gpucompat", *args], capture_output=True, text=True,
                          cwd=cwd or tempfile.gettempdir(), timeout=timeout)
