"""The OpenCL calls a builder child makes (opencl/builder.py), through ctypes and not pyopencl.

A child process that compiles one program needs nine OpenCL calls. Through pyopencl (its import
pulls in numpy and pytools) a child building one small kernel took 1.5-1.65 s, through ctypes
0.95-1.15 s; the child's program ends a cold start's builds on PoCL, and face_landmark's cold
verify went from medians of 5.5-5.7 s to 4.9-5.1 s (24 runs each, docs/benchmarks.md "Issue #27,
cold-start round").

The ICD loader is the one pyopencl uses: the wheel's own (pyopencl/.libs/libOpenCL*.so, with
PYOPENCL_HOME set and the runtimes its .icd files name loaded first, as importing pyopencl does),
else the system's libOpenCL. Anything that fails raises NativeError: the child then answers with
the error and the parent builds the program itself.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import importlib.util
import os
from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_uint, c_uint64, c_void_p

# cl.h constants
PLATFORM_NAME, DEVICE_NAME, DEVICE_TYPE_ALL = 0x0902, 0x102B, 0xFFFFFFFF
PROGRAM_BINARY_SIZES, PROGRAM_BINARIES = 0x1165, 0x1166
SUCCESS = 0


class NativeError(RuntimeError):
    """An OpenCL call failed, or no OpenCL library was found."""


def _pyopencl_loader() -> str | None:
    """The ICD loader bundled in pyopencl's wheel, made ready as importing pyopencl makes it: None
    when pyopencl is not installed from a wheel that bundles one."""
    spec = importlib.util.find_spec("pyopencl")
    if spec is None or spec.origin is None:
        return None
    home = os.path.dirname(spec.origin)
    libs = os.path.join(home, ".libs")
    loaders = glob.glob(os.path.join(libs, "libOpenCL*.so*"))
    if not loaders:
        return None
    os.environ.setdefault("PYOPENCL_HOME", home)  # where the bundled loader looks for its .icd files
    for icd in glob.glob(os.path.join(libs, "*.icd")):
        with open(icd) as f:
            runtime = os.path.join(libs, f.read().strip())
        if os.path.isfile(runtime):  # named by file name only: loaded here, the loader finds it
            ctypes.CDLL(runtime, mode=ctypes.RTLD_GLOBAL)
    return loaders[0]


def library() -> ctypes.CDLL:
    """The OpenCL ICD loader, its functions typed."""
    path = _pyopencl_loader() or ctypes.util.find_library("OpenCL")
    if path is None:
        raise NativeError("no OpenCL library found")
    cl = ctypes.CDLL(path)
    info = [c_void_p, c_uint, c_size_t, c_void_p, POINTER(c_size_t)]
    cl.clGetPlatformIDs.argtypes = [c_uint, POINTER(c_void_p), POINTER(c_uint)]
    cl.clGetPlatformInfo.argtypes = info
    cl.clGetDeviceIDs.argtypes = [c_void_p, c_uint64, c_uint, POINTER(c_void_p), POINTER(c_uint)]
    cl.clGetDeviceInfo.argtypes = info
    cl.clCreateContext.argtypes = [c_void_p, c_uint, POINTER(c_void_p), c_void_p, c_void_p, POINTER(c_int)]
    cl.clCreateContext.restype = c_void_p
    cl.clCreateProgramWithSource.argtypes = [c_void_p, c_uint, POINTER(c_char_p), POINTER(c_size_t), POINTER(c_int)]
    cl.clCreateProgramWithSource.restype = c_void_p
    cl.clBuildProgram.argtypes = [c_void_p, c_uint, POINTER(c_void_p), c_char_p, c_void_p, c_void_p]
    cl.clGetProgramInfo.argtypes = info
    return cl


def _checked(code: int, call: str) -> None:
    """NativeError unless an OpenCL call returned CL_SUCCESS."""
    if code != SUCCESS:
        raise NativeError(f"{call} failed with OpenCL error {code}")


def _listed(getter, *head) -> list[c_void_p]:
    """Every id a clGetPlatformIDs / clGetDeviceIDs call lists (`head`: the arguments before the
    count: none, or the platform and the device type)."""
    count = c_uint()
    _checked(getter(*head, 0, None, byref(count)), getter.__name__)
    ids = (c_void_p * count.value)()
    _checked(getter(*head, count, ids, None), getter.__name__)
    return [c_void_p(i) for i in ids]


def _name(getter, handle: c_void_p, what: int) -> str:
    """A platform's or device's name."""
    size = c_size_t()
    _checked(getter(handle, what, 0, None, byref(size)), getter.__name__)
    text = ctypes.create_string_buffer(size.value)
    _checked(getter(handle, what, size, text, None), getter.__name__)
    return text.value.decode(errors="replace")


def device(cl: ctypes.CDLL, platform: str, name: str) -> c_void_p:
    """The device called `name` on the platform called `platform`."""
    for p in _listed(cl.clGetPlatformIDs):
        if _name(cl.clGetPlatformInfo, p, PLATFORM_NAME) == platform:
            for d in _listed(cl.clGetDeviceIDs, p, DEVICE_TYPE_ALL):
                if _name(cl.clGetDeviceInfo, d, DEVICE_NAME) == name:
                    return d
    raise NativeError(f"no device {name!r} on {platform!r}")


def binary(platform: str, name: str, source: str, options: list[str]) -> bytes:
    """`source` built with `options` on the named device, as the binary clGetProgramInfo hands out
    (what the parent loads with clCreateProgramWithBinary)."""
    cl = library()
    d = device(cl, platform, name)
    status = c_int()
    context = cl.clCreateContext(None, 1, byref(d), None, None, byref(status))
    _checked(status.value, "clCreateContext")
    text = c_char_p(source.encode())
    program = cl.clCreateProgramWithSource(context, 1, byref(text), None, byref(status))
    _checked(status.value, "clCreateProgramWithSource")
    _checked(cl.clBuildProgram(program, 1, byref(d), " ".join(options).encode(), None, None), "clBuildProgram")
    size = c_size_t()
    _checked(cl.clGetProgramInfo(program, PROGRAM_BINARY_SIZES, ctypes.sizeof(size), byref(size), None),
             "clGetProgramInfo")
    out = ctypes.create_string_buffer(size.value)
    where = c_void_p(ctypes.addressof(out))
    _checked(cl.clGetProgramInfo(program, PROGRAM_BINARIES, ctypes.sizeof(where), byref(where), None),
             "clGetProgramInfo")
    return out.raw
