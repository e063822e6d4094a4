"""The OpenCL device: discovery, context and queue, program building, and the one place that turns
OpenCL failures into clear messages.

Discovery prefers a real GPU's driver and falls back to PoCL's CPU device (the embedded default,
from the pocl-binary-distribution wheel); `choose(spec)` picks a device by name or index.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import sys
from dataclasses import dataclass

from gpucompat.errors import GpucompatError


class CLError(GpucompatError):
    """An OpenCL call that failed, with the runtime's error name and, for builds, the build log."""


def cl():
    """pyopencl, imported on first use (check never pays for it)."""
    import pyopencl
    import pyopencl.cltypes  # noqa: F401  (vector argument types)

    return pyopencl


# "/tmp/...cl:168:5 <Spelling=...>: " in front of a compiler message (a temporary file's name)
_SOURCE_PLACE = re.compile(r"^\S*\.cl:\d+:\d+(?: <Spelling=[^>]*>)?:\s*")


@contextlib.contextmanager
def native_stderr_silenced():
    """Keep native log lines (PoCL's compiler's "1 error generated.", the interpreter's "INFO:
    Created TensorFlow Lite XNNPACK delegate") off file descriptor 2: the command's errors are one
    line, and failures arrive as exceptions."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def describe(error: Exception, what: str) -> CLError:
    """One error mapper: an OpenCL exception -> a one-line CLError saying what failed, with the
    status the runtime gave (pyopencl names it, e.g. INVALID_WORK_GROUP_SIZE) and, when a kernel
    did not compile, the compiler's error lines from the build log."""
    text = str(error).strip()
    if "BUILD_PROGRAM_FAILURE" in text:
        errors = [_SOURCE_PLACE.sub("", line.split("error:", 1)[1].strip())
                  for line in text.splitlines() if "error:" in line]
        reasons = "; ".join(errors) or "no error in the build log"
        return CLError(f"{what}: the OpenCL compiler rejected the kernel: {reasons}")
    return CLError(f"{what}: {text.splitlines()[0] if text else type(error).__name__}")


@dataclass
class Device:
    """One OpenCL device with its context and an in-order profiling queue."""

    device: object
    context: object
    queue: object

    @property
    def name(self) -> str:
        """Platform and device name ("Portable Computing Language / pthread-AMD EPYC")."""
        return f"{self.device.platform.name} / {self.device.name}"

    @property
    def key(self) -> str:
        """Cache key part naming the device and its driver: a compiled binary is only valid there."""
        d = self.device
        ident = "|".join([d.platform.name, d.platform.version, d.name, d.driver_version, d.version])
        return hashlib.sha256(ident.encode()).hexdigest()[:16]

    def build(self, source: str, options: list[str], what: str):
        """Compile `source`; a CLError with the build log when it does not compile."""
        pcl = cl()
        try:
            with native_stderr_silenced():
                return pcl.Program(self.context, source).build(options=options, cache_dir=False)
        except pcl.Error as e:
            raise describe(e, what) from None

    def load_binary(self, binary: bytes, what: str):
        """A program from a binary compiled earlier on this device (see ProgramCache)."""
        pcl = cl()
        try:
            return pcl.Program(self.context, [self.device], [binary]).build()
        except pcl.Error as e:
            raise describe(e, what) from None

    @staticmethod
    def binary_of(program) -> bytes:
        """The compiled binary of a one-device program."""
        return bytes(program.get_info(cl().program_info.BINARIES)[0])


_STARTED_IN: int | None = None  # the process that first talked to OpenCL


def _fork_guard() -> None:
    """Refuse OpenCL in a process forked (without exec) from one that already used it: the OpenCL
    state is inherited, but PoCL's worker threads are not, so the first enqueue would wait
    forever."""
    global _STARTED_IN
    if _STARTED_IN is not None and _STARTED_IN != os.getpid():
        raise CLError("OpenCL was started in a parent process before this one was forked, and its worker "
                      "threads do not survive a fork: run the executor in a freshly started process")
    _STARTED_IN = os.getpid()


def all_devices() -> list:
    """Every OpenCL device on every platform, GPUs first (the delegate's target when present)."""
    _fork_guard()
    pcl = cl()
    try:
        devices = [d for p in pcl.get_platforms() for d in p.get_devices()]
    except pcl.Error as e:
        raise describe(e, "listing OpenCL devices") from None
    return sorted(devices, key=lambda d: not d.type & pcl.device_type.GPU)


def choose(spec: str | None = None) -> Device:
    """Open the device named by `spec` (an index into `all_devices()` or part of its name); the first
    GPU, else the first device (PoCL's CPU device) when `spec` is None."""
    devices = all_devices()
    if not devices:
        raise CLError("no OpenCL device found (is pocl-binary-distribution installed?)")
    if spec is None:
        picked = devices[0]
    elif spec.isdigit() and int(spec) < len(devices):
        picked = devices[int(spec)]
    else:
        matches = [d for d in devices if spec.lower() in f"{d.platform.name} {d.name}".lower()]
        if not matches:
            names = "; ".join(f"{i}: {d.platform.name} / {d.name}" for i, d in enumerate(devices))
            raise CLError(f"no OpenCL device matches {spec!r} (devices: {names})")
        picked = matches[0]
    pcl = cl()
    try:
        ctx = pcl.Context([picked])
        queue = pcl.CommandQueue(ctx, properties=pcl.command_queue_properties.PROFILING_ENABLE)
    except pcl.Error as e:
        raise describe(e, f"opening OpenCL device {picked.name}") from None
    logging.getLogger(__name__).info("OpenCL device: %s / %s", picked.platform.name, picked.name)
    return Device(picked, ctx, queue)
