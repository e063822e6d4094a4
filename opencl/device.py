"""The OpenCL device: discovery, choice, context and queue, program building, and the one place
that turns OpenCL failures into clear messages.

Candidates in order: a real GPU's driver, PoCL's CPU device (the pocl-binary-distribution wheel),
Intel's CPU runtime (the intel-opencl-rt wheel, registered by intel_runtime.py), any other device.
`choose()` opens the first whose probe (probe.py) passes, so a driver that lists a device but
cannot build kernels (PoCL 3.0 on a CPU its LLVM 14 does not know) is passed over;
`choose(spec)` opens the device named by index or name, unprobed.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field

from gpucompat.errors import GpucompatError
from gpucompat.native_output import Shared, native_stderr_silenced
from gpucompat.opencl import intel_runtime
from gpucompat.opencl.builder import ChildBuild
from gpucompat.opencl.cache import default_dir


class CLError(GpucompatError):
    """An OpenCL call that failed, with the runtime's error name and, for builds, the build log."""


# What to install for the executor: pyopencl and the CPU OpenCL runtimes are the `verify` extra.
INSTALL_VERIFY = "pip install 'gpucompat[verify]' (in a checkout: pip install '.[verify]')"


class PassedOver(CLError):
    """A device taken before its probe ended (`choose(early=True)`) failed the probe: the caller
    chooses again (`choose()`), which gives the device chosen instead or says why none works."""


class ExecutorNotInstalled(GpucompatError):
    """pyopencl is missing: the executor's packages were not installed (the `verify` extra)."""


def cl():
    """pyopencl, imported on first use (check never pays for it); ExecutorNotInstalled, saying what
    to install, when the `verify` extra is not installed."""
    try:
        import pyopencl
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] != "pyopencl":
            raise
        raise ExecutorNotInstalled(f"the OpenCL executor needs pyopencl, which is not installed: {INSTALL_VERIFY}") \
            from None
    import pyopencl.cltypes  # noqa: F401  (vector argument types)

    return pyopencl


# "/tmp/...cl:168:5 <Spelling=...>: " in front of a compiler message (a temporary file's name)
_SOURCE_PLACE = re.compile(r"^\S*\.cl:\d+:\d+(?: <Spelling=[^>]*>)?:\s*")


def _ignore_compiler_output():
    saved = warnings.catch_warnings()
    saved.__enter__()
    warnings.simplefilter("ignore", cl().CompilerWarning)
    return saved


# Keep pyopencl's "CompilerWarning: Non-empty compiler output" off the user's screen: Intel's runtime
# reports every successful build ("Compilation started ... Done."); a failed build arrives as an
# exception with its log.
compiler_output_quiet = Shared(_ignore_compiler_output, lambda saved: saved.__exit__(None, None, None))


def describe(error: Exception, what: str) -> CLError:
    """One error mapper: an OpenCL exception -> a one-line CLError saying what failed, with the
    status the runtime gave (pyopencl names it, e.g. INVALID_WORK_GROUP_SIZE) and, when a kernel
    did not compile, the compiler's error lines from the build log."""
    text = str(error).strip()
    if "BUILD_PROGRAM_FAILURE" in text:
        errors = [_SOURCE_PLACE.sub("", line.split("error:", 1)[1].strip())
                  for line in text.splitlines() if "error:" in line]
        reasons = "; ".join(errors) or _first_log_line(text)
        return CLError(f"{what}: the OpenCL compiler rejected the kernel: {reasons}")
    return CLError(f"{what}: {text.splitlines()[0] if text else type(error).__name__}")


def _first_log_line(text: str) -> str:
    """The first line of a build log that is the driver's own ("Invalid build option: ..."), not
    pyopencl's frame around it."""
    frame = ("clBuildProgram failed", "Build on ", "(options:", "(source saved as")
    lines = [line.strip() for line in text.splitlines()]
    return next((line for line in lines if line and not line.startswith(frame)), "no error in the build log")


def device_key(device) -> str:
    """Cache key part naming a device and its driver: a compiled binary (and a probe answer) holds
    only there."""
    d = device
    ident = "|".join([d.platform.name, d.platform.version, d.name, d.driver_version, d.version])
    return hashlib.sha256(ident.encode()).hexdigest()[:16]


# A child process costs PoCL about what compiling two or three kernels costs (Python and PoCL's
# set-up: 0.5-0.8 s; opencl/native.py spares it pyopencl's import): a program compiled in one holds
# at least this many kernels (and a machine claiming many cores under a small CPU quota starts few
# children).
CHILD_KERNELS = 3


@dataclass
class Device:
    """One OpenCL device with its context and an in-order profiling queue."""

    device: object
    context: object
    queue: object
    passed_over: list[str] = field(default_factory=list)  # "name: why" of candidates tried before it
    # taken before its probe ended: the background open (its key, its future) that probes it
    probing: tuple[tuple, Future] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """Platform and device name ("Portable Computing Language / pthread-AMD EPYC")."""
        return name_of(self.device)

    @property
    def key(self) -> str:
        """Cache key part naming the device and its driver: a compiled binary is only valid there."""
        return device_key(self.device)

    @property
    def kind(self) -> str:
        """Which of KINDS this device is."""
        return kind(self.device)

    def programs_at_once(self, kernels: int) -> int:
        """How many programs `kernels` kernels are worth splitting into, built at once: one per core
        the process may use; on a device that builds in child processes, no more than one per
        CHILD_KERNELS kernels."""
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        return max(1, min(cores, kernels // CHILD_KERNELS)) if self.builds_in_processes else cores

    @property
    def builds_in_processes(self) -> bool:
        """Whether programs built at once need processes of their own (opencl/builder.py): PoCL's
        compiler takes turns, so two programs built in two threads cost their sum, even in two
        contexts of their own (PoCL 3.0, docs/benchmarks.md "Cold start")."""
        return self.kind == KINDS[1]

    def build_elsewhere(self, source: str, options: list[str]) -> ChildBuild:
        """Start compiling `source` in a child process on this device (its binary for
        `load_binary`, or None when the child failed: then `build` it here)."""
        return ChildBuild(self.device.platform.name, self.device.name, source, options)

    def build(self, source: str, options: list[str], what: str):
        """Compile `source`; a CLError with the build log when it does not compile."""
        pcl = cl()
        try:
            with native_stderr_silenced(), compiler_output_quiet():
                return pcl.Program(self.context, source).build(options=options, cache_dir=False)
        except pcl.Error as e:
            raise describe(e, what) from None

    def load_binary(self, binary: bytes, what: str):
        """A program from a binary compiled earlier on this device (see ProgramCache)."""
        pcl = cl()
        try:
            with compiler_output_quiet():
                return pcl.Program(self.context, [self.device], [binary]).build()
        except pcl.Error as e:
            raise describe(e, what) from None

    def confirm(self) -> None:
        """Wait for the probe of a device taken before its probe ended (choose(early=True)), so that
        nothing it computed is used unproven; PassedOver when the probe failed."""
        if self.probing is None:
            return
        key, opened = self.probing
        if opened.exception() is not None or opened.result() is not self:
            raise PassedOver(f"{self.name} failed its probe")
        self.probing = None
        if key in _AHEAD and _AHEAD[key].opened is opened:
            del _AHEAD[key]

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


NO_DEVICE = ("no OpenCL device found (on x86-64 Linux the `verify` extra's pocl-binary-distribution and "
             f"intel-opencl-rt provide CPU devices: {INSTALL_VERIFY}; elsewhere install an OpenCL driver, "
             "e.g. Debian's pocl-opencl-icd)")

# Candidate kinds in the order they are tried.
KINDS = ("GPU driver", "PoCL", "Intel CPU runtime", "other device")


def kind(device) -> str:
    """Which of KINDS a device is."""
    pcl = cl()
    if device.type & pcl.device_type.GPU:
        return KINDS[0]
    if device.platform.name == "Portable Computing Language":
        return KINDS[1]
    if device.platform.name.startswith("Intel(R) OpenCL") and device.type & pcl.device_type.CPU:
        return KINDS[2]
    return KINDS[3]


def name_of(device) -> str:
    """Platform and device name ("Portable Computing Language / pthread-AMD EPYC")."""
    return f"{device.platform.name} / {device.name}"


# PoCL compiles a kernel again for every work-group size it is launched with (its work-group
# specialization: 30 compilations of 14 kernels for face_landmark, most of a cold start), on top of
# the size-independent version its program binary holds (what the program cache keeps). Without
# specialization every launch runs that one version: a kernel compiles once. A user's own setting
# wins.
POCL_SETTINGS = {"POCL_WORK_GROUP_SPECIALIZATION": "0"}
# Environment variables that change what a driver's compiler does (PoCL's, Intel's): a probe answer,
# or a device opened ahead, holds only under the settings it was found with.
DRIVER_SETTINGS = ("POCL_", "CL_CONFIG_")


def driver_settings() -> tuple[tuple[str, str], ...]:
    """The driver settings in effect (POCL_SETTINGS' defaults put in the environment first)."""
    for name, value in POCL_SETTINGS.items():
        os.environ.setdefault(name, value)
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(DRIVER_SETTINGS)))


def all_devices() -> list:
    """Every OpenCL device on every platform (Intel's CPU runtime included when its wheel is
    installed), in the order of KINDS."""
    _fork_guard()
    driver_settings()
    pcl = cl()
    try:
        with intel_runtime.registered():
            platforms = pcl.get_platforms()
        devices = [d for p in platforms for d in p.get_devices()]
    except pcl.Error as e:
        raise describe(e, "listing OpenCL devices") from None
    return sorted(devices, key=lambda d: KINDS.index(kind(d)))


class NoWorkingDevice(CLError):
    """Every candidate failed its probe: the reason of each (one line apiece on the terminal)."""

    HEADLINE = "no OpenCL device can run the executor's kernels"
    HINT = ("gpucompat doctor lists every device; on x86-64 Linux `pip install intel-opencl-rt intel-cmplr-lib-rt` "
            "adds Intel's CPU runtime")

    def __init__(self, failures: list[str]):
        self.failures = failures
        super().__init__(f"{self.HEADLINE}: {'; '.join(failures)} ({self.HINT})")

    def lines(self) -> list[str]:
        """The headline, one indented line per device, the hint."""
        return [f"{self.HEADLINE}:", *(f"  {f}" for f in self.failures), self.HINT]


def _pick(devices: list, spec: str):
    """The device `spec` names: an index into `devices` or part of a platform / device name. A
    platform's name wins over a device's: PoCL names its CPU device after the processor
    ("pthread-Intel(R) Xeon(R) ..."), so "Intel" means Intel's runtime, not PoCL on an Intel CPU."""
    if spec.isdigit() and int(spec) < len(devices):
        return devices[int(spec)]
    wanted = spec.lower()
    matches = ([d for d in devices if wanted in d.platform.name.lower()]
               or [d for d in devices if wanted in f"{d.platform.name} {d.name}".lower()])
    if not matches:
        names = "; ".join(f"{i}: {name_of(d)}" for i, d in enumerate(devices))
        raise CLError(f"no OpenCL device matches {spec!r} (devices: {names})")
    return matches[0]


def first_working(devices: list, cache_dir: str | None,
                  failed: Callable[[object], None] = lambda device: None) -> tuple[object, list[str]]:
    """The first of `devices` whose probe passes, and "name: why" for each one passed over before
    it (each also handed to `failed` as soon as it fails); NoWorkingDevice when none passes."""
    from gpucompat.opencl.probe import probe  # probe.py builds on this module

    failures = []
    for d in devices:
        result = probe(d, cache_dir)
        if result.works:
            return d, failures
        failed(d)
        failures.append(f"{name_of(d)} ({kind(d)}): {result.why}")
    raise NoWorkingDevice(failures)


@dataclass
class _Ahead:
    """A choose() started in the background: `opened` the device it gives (probed), `early` the
    first candidate's device as soon as the devices are listed, when its probe is still to run,
    and `first_failed` set once that probe has failed."""

    opened: Future = field(default_factory=Future)
    early: Future = field(default_factory=Future)
    first_failed: threading.Event = field(default_factory=threading.Event)


# choose() calls started in the background by open_ahead, by _ahead_key
_AHEAD: dict[tuple, _Ahead] = {}


def _ahead_key(spec: str | None, cache_dir: str | None) -> tuple:
    """What a device opened ahead was chosen under: the arguments, where probe answers are kept and
    the driver settings (a process may change them between two commands: the API, tests)."""
    return spec, cache_dir, default_dir(), driver_settings()


def open_ahead(spec: str | None = None, cache_dir: str | None = None) -> None:
    """Start `choose(spec, cache_dir)` in a background thread: listing the devices and a cold probe
    (a build, most of a second) overlap with what a command does before its first build (a fix's
    rewriting, verify's reference side), and with the model's own builds when the device is taken
    early. The next `choose` with these arguments, under the same settings, takes the device, or
    raises the error the background attempt met."""
    key = _ahead_key(spec, cache_dir)
    if key in _AHEAD:
        return
    ahead = _Ahead()

    def attempt() -> None:
        try:
            ahead.opened.set_result(_open(spec, cache_dir, ahead))
        except BaseException as e:  # noqa: BLE001 - handed to whoever takes the device, unchanged
            ahead.opened.set_exception(e)

    _AHEAD[key] = ahead
    threading.Thread(target=attempt, name="gpucompat-open-device", daemon=True).start()


def settle() -> None:
    """Wait for every device being opened in the background: its probe silences stderr while it
    builds, so an error written meanwhile would be lost."""
    wait([ahead.opened for ahead in _AHEAD.values()])


def choose(spec: str | None = None, cache_dir: str | None = None, early: bool = False) -> Device:
    """Open the device named by `spec` (an index into `all_devices()` or part of its name), or when
    `spec` is None the first candidate whose probe passes (probe answers kept in `cache_dir`,
    default the program cache directory); the one `open_ahead` opened, when it was started with
    these arguments. `early`: when that background open is still probing its first candidate, that
    candidate at once (a cold probe then overlaps with the model's builds); its `confirm` waits for
    the probe, and a PassedOver from there means choosing again."""
    key = _ahead_key(spec, cache_dir)
    ahead = _AHEAD.get(key)
    if ahead is None:
        return _open(spec, cache_dir)
    if early:
        wait([ahead.opened, ahead.early], return_when=FIRST_COMPLETED)
        if not ahead.opened.done() and not ahead.first_failed.is_set():
            taken = ahead.early.result()
            taken.probing = (key, ahead.opened)
            return taken
    del _AHEAD[key]
    return ahead.opened.result()


def _open(spec: str | None, cache_dir: str | None, ahead: _Ahead | None = None) -> Device:
    """The device choose() gives; a background open (`ahead`) is given the first candidate's device
    before its probe runs, when no answer of that probe is kept."""
    devices = all_devices()
    if not devices:
        raise CLError(NO_DEVICE)
    passed_over: list[str] = []
    if spec is None:
        kept_in = default_dir() if cache_dir is None else cache_dir
        first = _unprobed(devices[0], kept_in) if ahead is not None else None
        if first is not None:
            ahead.early.set_result(first)

        def failed(device) -> None:
            if ahead is not None and device is devices[0]:
                ahead.first_failed.set()  # choose(early=True) no longer takes it

        picked, passed_over = first_working(devices, kept_in, failed)
        opened = first if first is not None and picked is devices[0] else _opened(picked, passed_over)
    else:
        opened = _opened(_pick(devices, spec), [])
    log = logging.getLogger(__name__)
    for failure in passed_over:
        log.info("OpenCL device passed over: %s", failure)
    log.info("OpenCL device: %s", opened.name)
    return opened


def _opened(device, passed_over: list[str]) -> Device:
    """`device` with a context and a profiling queue of its own."""
    pcl = cl()
    try:
        ctx = pcl.Context([device])
        queue = pcl.CommandQueue(ctx, properties=pcl.command_queue_properties.PROFILING_ENABLE)
    except pcl.Error as e:
        raise describe(e, f"opening OpenCL device {device.name}") from None
    return Device(device, ctx, queue, passed_over)


def _unprobed(device, kept_in: str | None) -> Device | None:
    """`device` opened for use before its probe, when no answer of the probe is kept in `kept_in`
    and it opens at all (a broken driver's device is left to the probe to explain)."""
    from gpucompat.opencl.probe import kept

    if kept_in and kept(device, kept_in) is not None:
        return None
    try:
        return _opened(device, [])
    except Exception:  # noqa: BLE001 - whatever a driver raises, the probe then says it
        return None
