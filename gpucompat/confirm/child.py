"""Run in a child process: compile each model given on the command line with LiteRT's GPU and
CPU accelerators (no inference) and mark on stderr where each model's log lines begin and what
the compilation returned. Standard library and ai_edge_litert only: the parent may run it with
another Python than its own.

Protocol (stderr, one line each, between the runtime's own lines):
  @@gpucompat verbose <json>        once: whether the log level could be lowered, the LiteRT version
  @@gpucompat model <index>         before model <index> (0-based) is compiled
  @@gpucompat result <json>         {"compiled": bool, "error": str|null, "fully_accelerated": bool|null}
"""

import json
import os
import struct
import sys

MARK = "@@gpucompat"


def say(kind: str, payload) -> None:
    """One protocol line on fd 2, so it lands in order with the runtime's C-level logging."""
    os.write(2, f"{MARK} {kind} {json.dumps(payload)}\n".encode())


def elf_symbols(path: str, fragment: str) -> dict[str, int]:
    """Addresses of the .symtab symbols of the ELF64 file `path` whose names contain `fragment`."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    found = {}
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 24):
            name_off, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, off)
            end = data.index(b"\0", strtab[4] + name_off)
            name = data[strtab[4] + name_off:end].decode("ascii", "replace")
            if fragment in name:
                found[name] = value
    return found


def lower_log_severity() -> list[str]:
    """Set tflite's MinimalLogger minimum severity to VERBOSE, so the "Replacing X out of Y
    node(s)" lines are printed. ai-edge-litert offers no API for it: the two severity variables
    are local symbols of libpywrap_litert_common.so (tflite/logger.cc, minimum_log_severity_),
    found in the library's symbol table and written through the mapped image. Returns the
    symbols written (empty: this build does not have them)."""
    import ctypes

    import ai_edge_litert._pywrap_litert_compiled_model_wrapper  # noqa: F401  (maps the library)

    with open("/proc/self/maps") as f:
        maps = [line.split() for line in f]
    lib = next((p for p in maps if len(p) >= 6 and p[5].endswith("libpywrap_litert_common.so")
                and int(p[2], 16) == 0), None)
    if lib is None:
        return []
    base = int(lib[0].split("-")[0], 16)
    written = []
    for name, addr in elf_symbols(lib[5], "minimum_log_severity_").items():
        ctypes.c_int.from_address(base + addr).value = 0  # TFLITE_LOG_VERBOSE
        written.append(name)
    return written


def litert_release() -> str | None:
    """The installed LiteRT release: the stable wheel's or the nightly's (ai-edge-litert-nightly,
    which installs the same ai_edge_litert package)."""
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("ai-edge-litert", "ai-edge-litert-nightly"):
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return None


def main(paths: list[str]) -> None:
    """Compile every model in turn; a model's failure is its result, not the end of the run."""
    try:
        written = lower_log_severity()
        from ai_edge_litert.compiled_model import CompiledModel
        from ai_edge_litert.hardware_accelerator import HardwareAccelerator
    except Exception as e:  # no usable ai_edge_litert in this Python
        say("verbose", {"ok": False, "error": f"{type(e).__name__}: {e}"})
        return
    say("verbose", {"ok": bool(written), "symbols": written, "litert": litert_release()})
    for i, path in enumerate(paths):
        say("model", i)
        try:
            model = CompiledModel.from_file(path, hardware_accel=HardwareAccelerator.GPU | HardwareAccelerator.CPU)
            # releases before 2.2 have no is_fully_accelerated: their log lines still say what ran where
            full = model.is_fully_accelerated() if hasattr(model, "is_fully_accelerated") else None
            result = {"compiled": True, "error": None, "fully_accelerated": full}
            del model
        except Exception as e:
            result = {"compiled": False, "error": str(e).strip(), "fully_accelerated": None}
        say("result", result)


if __name__ == "__main__":
    main(sys.argv[1:])
