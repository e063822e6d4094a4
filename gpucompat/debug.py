"""`GPUCOMPAT_DEBUG=N`: diagnostics on stderr through `logging` (the "gpucompat" logger).

N is a number: 0 (or unset) only warnings, 1 adds what was chosen (the settings file, the OpenCL
device), 2 adds debug detail, 3 and above every OpenCL program build or cache load. Library users
configure the "gpucompat" logger themselves instead."""

from __future__ import annotations

import logging
import os

from gpucompat.errors import GpucompatError

DETAIL = 5  # below DEBUG: one line per program build or cache load
_LEVELS = {0: logging.WARNING, 1: logging.INFO, 2: logging.DEBUG}


def level(value: str | None) -> int:
    """The logging level GPUCOMPAT_DEBUG=`value` asks for; a value that is not a whole number >= 0
    is a GpucompatError naming the variable."""
    text = (value or "0").strip() or "0"
    if not text.isdigit():
        raise GpucompatError(f"GPUCOMPAT_DEBUG={value!r}: expected a level 0-3")
    return _LEVELS.get(int(text), DETAIL)


def configure() -> None:
    """Send the "gpucompat" logger's records at the level GPUCOMPAT_DEBUG asks for to stderr (the
    command line calls this once; stdout stays the command's output)."""
    logger = logging.getLogger("gpucompat")
    logger.setLevel(level(os.environ.get("GPUCOMPAT_DEBUG")))
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[gpucompat] %(message)s"))
        logger.addHandler(handler)
    logger.propagate = False
