"""Run the installed `gpucompat` command the way a user does."""

import os
import pty
import select
import subprocess
import sys
import tempfile


def gpucompat(*args: str, cwd: str | None = None, timeout: float = 120,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `python -m gpucompat ARGS` in a child process and capture its output (`env`: variables
    set on top of this process's).

    It runs outside the source tree by default, as a user would, so that the installed package is
    what gets tested."""
    return subprocess.run([sys.executable, "-m", "gpucompat", *args], capture_output=True, text=True,
                          cwd=cwd or tempfile.gettempdir(), timeout=timeout, env={**os.environ, **(env or {})})


def on_a_terminal(argv: list[str], terminal: str = "stderr", env: dict | None = None) -> tuple[str, str, int]:
    """Run `argv` with one stream (`terminal`: "stdout" or "stderr") on a pseudo-terminal, as when
    a user types the command, and the other on a pipe: (what the terminal got, what the pipe got,
    exit code). It runs outside the source tree, as `gpucompat` does."""
    master, slave = pty.openpty()
    streams = {"stdout": slave, "stderr": subprocess.PIPE} if terminal == "stdout" else \
        {"stdout": subprocess.PIPE, "stderr": slave}
    proc = subprocess.Popen(argv, env={"TERM": "xterm", **(env or os.environ)}, cwd=tempfile.gettempdir(),
                            **streams)
    os.close(slave)
    drawn = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            drawn += chunk
        elif proc.poll() is not None:
            break
    piped = (proc.stderr if terminal == "stdout" else proc.stdout).read()
    proc.wait(timeout=300)
    os.close(master)
    return drawn.decode("utf-8", "replace"), piped.decode(), proc.returncode
