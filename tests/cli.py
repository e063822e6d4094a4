"""Run the installed `gpucompat` command the way a user does."""

import subprocess
import sys


def gpucompat(*args: str, cwd: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m gpucompat ARGS` in a child process and capture its output."""
    return subprocess.run([sys.executable, "-m", "gpucompat", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)
