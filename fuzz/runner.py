"""Run `gpucompat ARGS` in a forked child of a process that has already imported the tool: the
cost of a case is the command's own work, not Python's start-up, and yet every case is isolated.
The child gets an address-space cap (RLIMIT_AS) and a wall-clock limit; its stdout and stderr go
to files (file descriptors 1 and 2, so output from native libraries is caught too), and its peak
resident memory comes back from wait4."""

from __future__ import annotations

import faulthandler
import io
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

EXIT_ESCAPED = 70  # the child's own code when an exception got past gpucompat.cli.main


@dataclass
class Outcome:
    """How one command ended."""

    exit_code: int | None  # None when killed by a signal (a crash) or by the time limit
    signal: int | None
    timed_out: bool
    stdout: str
    stderr: str
    peak_rss_mb: float
    seconds: float


def warm_up() -> None:
    """Import what every command imports, once, in the parent: forked children then start warm."""
    import gpucompat.cli  # noqa: F401
    from gpucompat import analyses, pipeline, placement  # noqa: F401
    from gpucompat.output import records, terminal  # noqa: F401


def status_mb(field: str) -> float:
    """A size from /proc/self/status in MB: "VmSize" (virtual, the base of the children's address
    space cap) or "VmRSS" (resident, the base their peak memory is measured from)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def _child(argv: list[str], out_path: str, err_path: str, cap_bytes: int, file_size_bytes: int | None) -> None:
    """Runs in the forked child; never returns. `file_size_bytes` caps every file the child
    writes (RLIMIT_FSIZE): a write past it fails with EFBIG, as on a full disk."""
    code = EXIT_ESCAPED
    faulthandler.disable()  # a crash is the runner's to report, from the exit status
    try:
        out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(err, 2)
        # fresh text streams on the new descriptors, encoded as the real process's were (a test
        # runner may have swapped sys.stdout / sys.stderr for capture objects)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding=sys.__stdout__.encoding,
                                      errors=sys.__stdout__.errors)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), encoding=sys.__stderr__.encoding,
                                      errors=sys.__stderr__.errors, line_buffering=True)
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
        if file_size_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_bytes, file_size_bytes))
        sys.argv = ["gpucompat", *argv]
        from gpucompat.cli import main

        main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_ESCAPED)
    except BaseException:  # noqa: BLE001 - record what escaped the command's own handler
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def run_many(jobs: Iterable[tuple[object, list[str]]], parallel: int, timeout_s: float,
             memory_cap_mb: float, file_size_bytes: int | None = None) -> Iterator[tuple[object, Outcome]]:
    """Run each (key, argv) in a forked child, `parallel` at a time; yield (key, Outcome) as they
    end. A child over `timeout_s` is killed; its address space is capped at the parent's current
    size plus `memory_cap_mb`."""
    cap = int((status_mb("VmSize") + memory_cap_mb) * 1024 * 1024)
    pending = iter(jobs)
    running: dict[int, tuple[object, str, float]] = {}
    scratch = tempfile.mkdtemp(prefix="gpucompat-fuzz-io-")
    try:
        while True:
            while len(running) < parallel:
                job = next(pending, None)
                if job is None:
                    break
                key, argv = job
                tag = os.path.join(scratch, str(len(running)) + "-" + str(time.monotonic_ns()))
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    _child(argv, tag + ".out", tag + ".err", cap, file_size_bytes)
                running[pid] = (key, tag, time.monotonic())
            if not running:
                return
            yield from _reap(running, timeout_s)
    finally:
        for pid in running:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        for name in os.listdir(scratch):
            os.unlink(os.path.join(scratch, name))
        os.rmdir(scratch)


def _reap(running: dict[int, tuple[object, str, float]], timeout_s: float) -> Iterator[tuple[object, Outcome]]:
    """Wait until at least one child ends (or is killed for its time); yield what ended."""
    while True:
        done = []
        for pid, (key, tag, start) in list(running.items()):
            waited, status, usage = os.wait4(pid, os.WNOHANG)
            timed_out = False
            if waited == 0:
                if time.monotonic() - start < timeout_s:
                    continue
                os.kill(pid, signal.SIGKILL)
                waited, status, usage = os.wait4(pid, 0)
                timed_out = True
            del running[pid]
            done.append((key, _outcome(tag, status, usage, timed_out, time.monotonic() - start)))
        if done:
            yield from done
            return
        time.sleep(0.002)


def _outcome(tag: str, status: int, usage, timed_out: bool, seconds: float) -> Outcome:
    texts = []
    for suffix in (".out", ".err"):
        with open(tag + suffix, "rb") as f:
            texts.append(f.read().decode("utf-8", "replace"))
        os.unlink(tag + suffix)
    exited = os.WIFEXITED(status) and not timed_out
    return Outcome(os.WEXITSTATUS(status) if exited else None,
                   os.WTERMSIG(status) if os.WIFSIGNALED(status) and not timed_out else None,
                   timed_out, texts[0], texts[1], usage.ru_maxrss / 1024, seconds)


def run_one(argv: list[str], timeout_s: float = 60.0, memory_cap_mb: float = 2048,
            file_size_bytes: int | None = None) -> Outcome:
    """Run one command in a forked child (see run_many) and return how it ended."""
    return next(run_many([(0, argv)], 1, timeout_s, memory_cap_mb, file_size_bytes))[1]
