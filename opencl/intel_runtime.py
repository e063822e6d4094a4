"""Intel's CPU OpenCL runtime from its PyPI wheels (intel-opencl-rt, intel-cmplr-lib-rt), made
visible to pyopencl's ICD loader inside the running process.

The wheel cannot register itself: its etc/OpenCL/vendors/intel-cpu.icd names the unrelocated
/opt/anaconda1anaconda2anaconda3/lib/libintelocl.so. pyopencl's bundled ocl-icd reads
OCL_ICD_VENDORS (a directory of .icd files, replacing /etc/OpenCL/vendors) once, at the first
platform query, so `registered()` points it at a temporary directory holding the .icd files it
would have read anyway plus one naming the installed libintelocl.so, and puts the variable back
afterwards. libintelocl.so finds its compiler libraries (libimf, libsvml, libirng, libintlc, from
intel-cmplr-lib-rt) through its $ORIGIN run path: pip puts both wheels' libraries in the same
lib/ directory, so LD_LIBRARY_PATH (which cannot change inside a running process) is not needed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
from importlib import metadata

LIBRARY = "libintelocl.so"
SYSTEM_VENDORS = "/etc/OpenCL/vendors"
_loader_started = False  # the ICD loader reads its vendors once per process, at the first query


def installed_file(distribution: str, name: str) -> str | None:
    """The absolute path of the file called `name` that the installed `distribution` put down, or
    None when the distribution (or the file) is not installed."""
    try:
        files = metadata.files(distribution) or []
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == name:
            path = os.path.realpath(f.locate())
            if os.path.isfile(path):
                return path
    return None


def _vendor_files() -> list[str]:
    """The .icd files the ICD loader would read without us (OCL_ICD_VENDORS, else the system's)."""
    place = os.environ.get("OCL_ICD_VENDORS") or SYSTEM_VENDORS
    if os.path.isfile(place):
        return [place]
    return sorted(glob.glob(os.path.join(place, "*.icd")))


def _names_intel(icd: str) -> bool:
    with contextlib.suppress(OSError), open(icd) as f:
        return LIBRARY in f.read()
    return False


@contextlib.contextmanager
def registered():
    """Within the block, the ICD loader's first platform query also finds Intel's CPU runtime when
    its wheel is installed and nothing registered it already (an oneAPI install does); otherwise
    nothing changes (nor after the first block in a process: the loader has read its vendors). The
    environment is as before afterwards."""
    global _loader_started
    first, _loader_started = not _loader_started, True
    library = installed_file("intel-opencl-rt", LIBRARY) if first else None
    vendors = _vendor_files() if library else []
    if library is None or any(_names_intel(v) for v in vendors):
        yield
        return
    saved = os.environ.get("OCL_ICD_VENDORS")
    directory = tempfile.mkdtemp(prefix="gpucompat-icd-")
    try:
        for i, icd in enumerate(vendors):
            shutil.copyfile(icd, os.path.join(directory, f"{i:03d}-{os.path.basename(icd)}"))
        with open(os.path.join(directory, "intel-cpu-wheel.icd"), "w") as f:
            f.write(library + "\n")
        os.environ["OCL_ICD_VENDORS"] = directory
        yield
    finally:
        if saved is None:
            os.environ.pop("OCL_ICD_VENDORS", None)
        else:
            os.environ["OCL_ICD_VENDORS"] = saved
        shutil.rmtree(directory, ignore_errors=True)
