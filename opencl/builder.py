"""Programs compiled in a child process, for drivers whose compiler works one build at a time.

PoCL 3.0 takes turns between builds in one process, even in two contexts (docs/benchmarks.md "Cold
start"), so a model's programs built in threads cost their sum. A child process has its own PoCL:
it opens the same device, builds one program and hands back the binary, which the parent loads as
it loads the program cache. On two cores a cold start then compiles in two places at once.

The child is `python -P -m gpucompat.opencl.builder`, fed one request on stdin (a JSON line naming
the device and the build options, then the source) and answering on stdout with a JSON line (the
binary's size, or why it failed) and the binary. It calls OpenCL through ctypes (opencl/native.py),
not pyopencl. Any failure (the child could not start, find the device or build, or died) is only a
lost head start: the parent builds the program itself, and a build error is then reported from
there, with its log, as ever.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from concurrent.futures import CancelledError

from gpucompat.opencl import native

_log = logging.getLogger(__name__)


# A child still building after this long is given up (the parent builds the program itself): a
# driver that hangs must not hang the command.
TIMEOUT_S = 300


class ChildBuild:
    """One program compiled in a child process: the process starts at construction, the request is
    sent and the binary read by `binary`."""

    def __init__(self, platform: str, device: str, source: str, options: list[str]):
        self.cancelled = False
        self.request = (json.dumps({"platform": platform, "device": device, "options": options}) + "\n"
                        + source).encode()
        try:
            # -P: the working directory is not put first on sys.path, where a `gpucompat` directory
            # would shadow the package the parent runs
            self.child: subprocess.Popen | None = subprocess.Popen(
                [sys.executable, "-P", "-m", "gpucompat.opencl.builder"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as e:
            _log.debug("no child build: %s", e)
            self.child = None

    def cancel(self) -> None:
        """Stop the child: another build failed, so this one's binary is of no use."""
        self.cancelled = True
        if self.child is not None:
            self.child.kill()

    def binary(self) -> bytes | None:
        """The compiled binary, or None when the child did not deliver one (the caller builds);
        CancelledError once `cancel` was called (nothing is to be built then)."""
        if self.child is None:
            return None
        try:
            answer, _ = self.child.communicate(self.request, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            self.child.kill()
            self.child.wait()
            _log.debug("child build given up: %s", e)
            answer = None
        if self.cancelled:
            raise CancelledError("the child build was cancelled")
        if answer is None:
            return None
        header, _, binary = answer.partition(b"\n")
        try:
            size = json.loads(header).get("size", -1)
        except (ValueError, AttributeError):
            size = -1
        if size != len(binary) or not size:
            _log.debug("child build failed (exit status %s): %s", self.child.returncode, header[:500])
            return None
        return binary


def main() -> None:
    """The child: one request on stdin, the answer on stdout."""
    header, source = sys.stdin.buffer.read().decode().split("\n", 1)
    out = sys.stdout.buffer
    try:
        request = json.loads(header)
        binary = native.binary(request["platform"], request["device"], source, request["options"])
    except Exception as e:  # noqa: BLE001 - any failure is an answer: the parent builds instead
        out.write(json.dumps({"error": f"{type(e).__name__}: {e}"[:500]}).encode() + b"\n")
        return
    out.write(json.dumps({"size": len(binary)}).encode() + b"\n" + binary)


if __name__ == "__main__":
    main()
