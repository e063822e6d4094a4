"""What `gpucompat doctor` finds out about this machine: the versions that matter, every OpenCL
device with its probe and which one `verify` uses (and why the others were passed over), the
program cache directory, and the Vulkan driver `confirm` would run on."""

from __future__ import annotations

import glob
import json
import os
import platform
import sys
from importlib import metadata

from gpucompat.errors import GpucompatError

PACKAGES = ("ai-edge-litert", "pyopencl", "pocl-binary-distribution", "intel-opencl-rt", "intel-cmplr-lib-rt")
VULKAN_ICD_DIRS = ("/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def opencl_devices(cache_dir: str) -> dict:
    """Every OpenCL device in the order `verify` tries them, each probed (answers kept in
    `cache_dir`), the one `verify` uses and, for each other, why it is not used."""
    from gpucompat.opencl import device as cl_device
    from gpucompat.opencl.probe import probe

    try:
        devices = cl_device.all_devices()
    except GpucompatError as e:  # pyopencl not installed (the `verify` extra), or no platform at all
        return {"error": str(e), "devices": [], "verify_device": None}
    rows, chosen = [], None
    for i, d in enumerate(devices):
        result = probe(d, cache_dir)
        kind = cl_device.kind(d)
        if result.works and chosen is None:
            chosen, note = i, "used by verify: the first device in the order whose probe passes"
        elif result.works:
            note = f"works, not used: {rows[chosen]['name']} ({rows[chosen]['kind']}) comes first"
        else:
            note = f"passed over: {result.why}"
        rows.append({"index": i, "name": cl_device.name_of(d), "kind": kind, "platform_version": d.platform.version,
                     "driver_version": d.driver_version, "works": result.works, "why": result.why,
                     "probe_seconds": result.seconds, "probe_cached": result.cached, "note": note})
    failing = f"no OpenCL device passed the probe ({cl_device.NoWorkingDevice.HINT})"
    error = None if chosen is not None else failing if devices else cl_device.NO_DEVICE
    return {"error": error, "devices": rows,
            "verify_device": rows[chosen]["name"] if chosen is not None else None}


def vulkan_drivers() -> dict:
    """The Vulkan drivers `confirm` would load (the set-up's env.sh or the system's ICD files),
    whether their libraries are there, how to get one, and whether `confirm` can run: listing is
    not compiling, so when a driver's library is there a probe model is compiled on LiteRT's
    accelerator (confirm/probe.py, about 2 s)."""
    from gpucompat.confirm import probe, runner
    from gpucompat.progress import status

    launch = runner.launcher()
    named = launch.env.get("VK_DRIVER_FILES") or launch.env.get("VK_ICD_FILENAMES")
    files = named.split(os.pathsep) if named else sorted(f for d in VULKAN_ICD_DIRS for f in glob.glob(f"{d}/*.json"))
    drivers = [_vulkan_driver(f) for f in files if f]
    available = any(d["library_present"] for d in drivers)
    how = runner.NO_DEVICE_HELP.format(why="")
    if available:
        with status("compiling a probe model on LiteRT's GPU accelerator"):
            confirm = probe.probe(launch).record()
    else:
        confirm = {"works": False, "why": how, "seconds": 0.0}
    return {"setup": launch.driver, "drivers": drivers, "available": available, "how_to_get_one": how,
            "confirm": confirm}


def _vulkan_driver(path: str) -> dict:
    """One Vulkan ICD file: the library it names and whether that library exists."""
    library = None
    try:
        with open(path) as f:
            library = json.load(f)["ICD"]["library_path"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    present = bool(library) and (os.path.exists(os.path.join(os.path.dirname(path), library))
                                 if os.sep in library else True)  # a bare name is found on the loader's path
    return {"file": path, "library": library, "library_present": present}


def diagnose() -> dict:
    """The whole report (`gpucompat doctor --format json`)."""
    from gpucompat.confirm.probe import probe_gl
    from gpucompat.opencl.cache import default_dir
    from gpucompat.progress import status

    cache_dir = default_dir()
    opencl, vulkan = opencl_devices(cache_dir), vulkan_drivers()
    with status("handing a probe model to the classic GL delegate"):
        gl = probe_gl().record()
    return {
        "python": {"version": platform.python_version(), "executable": sys.executable,
                   "machine": f"{sys.platform} {platform.machine()}"},
        "packages": {name: _version(name) for name in PACKAGES},
        "opencl": opencl,
        "program_cache": {"directory": cache_dir, "exists": os.path.isdir(cache_dir)},
        "vulkan": vulkan,
        "gl_delegate": gl,
        "verify_can_run": opencl["verify_device"] is not None,
        "confirm_can_run": vulkan["confirm"]["works"],
        "confirm_gl_can_run": gl["works"],
    }
