"""Programs, buffers and launches for one device at one precision: what the op lowerings use.

Kernel families live in opencl/<family>.cl. Launches are prepared first and their kernels compiled
together, before the first one runs: only the kernels used, each with the ops fused into it, in as
few programs as the device builds at once, built in parallel (opencl/programs.py). The precision
picks the storage type: fp32 stores float, fp16 stores half through vload_half / vstore_half (PoCL
has no cl_khr_fp16) while the arithmetic stays in float, like the delegate's F32_F16 mode
(common/precision.h); the results of fused ops are rounded to half as well (common.cl TO_STORE), as
the delegate computes them on half values.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import ContextManager

import numpy as np

from gpucompat.debug import DETAIL
from gpucompat.opencl import programs
from gpucompat.opencl.builder import ChildBuild
from gpucompat.opencl.cache import ProgramCache, source_key
from gpucompat.opencl.device import Device, cl, describe
from gpucompat.opencl.fusion import PLAIN, Epilogue, shared, shared_arguments
from gpucompat.opencl.phwc4 import BHWC, from_phwc4, to_phwc4
from gpucompat.opencl.programs import Variant

PRECISIONS = ("fp32", "fp16")
_log = logging.getLogger(__name__)
_STORAGE = {"fp32": np.float32, "fp16": np.float16}


class _Unseen:
    """A progress step nobody sees (the runtime without a progress display)."""

    def say(self, text: str) -> None:
        """Nothing to update."""


def unseen(text: str) -> ContextManager[_Unseen]:
    """The default progress display: none."""
    return contextlib.nullcontext(_Unseen())


@dataclass
class GpuTensor:
    """A tensor on the device in PHWC4 storage."""

    buffer: object
    shape: BHWC


@dataclass
class KernelProfile:
    """Kernel events kept while `on` (bench/executor.py's per-kernel profile): (what, grid, event)."""

    on: bool = False
    records: list = field(default_factory=list)


@dataclass
class Launch:
    """One kernel launch prepared at load, its kernel bound when the runtime has compiled it (on the
    first call at the latest): `family`.`name` with the ops `linked` into it, its own arguments
    `args` (the linked ops' arguments are added at binding, as the compiled variant takes them);
    `args` keeps the bound buffers alive (a kernel object does not)."""

    runtime: Runtime
    family: str
    name: str
    linked: Epilogue
    grid: tuple[int, ...]
    local: tuple[int, ...] | None
    args: list
    what: str
    enqueue: Callable[[], object] | None = None  # the kernel's launch with everything bound, set by `bind`

    def bind(self, program, name: str, extra: list) -> None:
        """Take the kernel `name` of a compiled program, with this launch's arguments and `extra`
        (the linked ops' arguments, as the variant compiled takes them) set."""
        pcl = cl()
        self.args = [*self.args, *(_argument(a) for a in extra)]
        try:
            kernel = pcl.Kernel(program, name)
            kernel.set_args(*self.args)
        except pcl.Error as e:
            raise describe(e, f"preparing {self.what}") from None
        # the whole call bound once: a run's loop over 50-100 launches is host time the device's
        # threads could use (on MobileNetV2, PoCL: 0.12 -> 0.09 ms a run; docs/benchmarks.md)
        self.enqueue = partial(pcl.enqueue_nd_range_kernel, self.runtime.device.queue, kernel, self.grid, self.local)

    def __call__(self) -> None:
        if self.enqueue is None:
            self.runtime.build()
        try:
            event = self.enqueue()
        except cl().Error as e:
            raise describe(e, f"running {self.what}") from None
        if self.runtime.trace.on:
            self.runtime.trace.records.append((self.what, self.grid, event))


class Runtime:
    """One device at one precision, with the programs of one model. `progress(text)` shows a step
    while it runs (gpucompat/progress.py status; none by default)."""

    def __init__(self, device: Device, precision: str = "fp32", cache: ProgramCache | None = None,
                 progress: Callable[[str], ContextManager] = unseen):
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}")
        self.device = device
        self.precision = precision
        self.storage = np.dtype(_STORAGE[precision])
        self.cache = cache
        self.progress = progress
        self.kernels: dict[Variant, tuple[object, str]] = {}  # compiled: (program, entry point)
        self.pending: list[Launch] = []
        self.compile_s = 0.0
        self.built: list[str] = []  # kernels ("family.kernel") compiled from source / loaded from the disk cache
        self.loaded: list[str] = []
        self.trace = KernelProfile()
        self.unused = None

    @property
    def options(self) -> list[str]:
        """Build options: the storage type switch."""
        return ["-cl-std=CL1.2", *(["-DHALF_STORAGE"] if self.precision == "fp16" else [])]

    def compile(self, variants: list[Variant]) -> None:
        """Compile the kernel variants not compiled yet: split into as many programs as the device
        builds at once (programs.split), each from the disk cache when it holds the program, else
        built in parallel threads (the OpenCL build releases the GIL), or, on a device whose
        compiler takes turns, all but one in child processes (opencl/builder.py)."""
        todo = sorted(set(variants) - self.kernels.keys())
        if not todo:
            return
        groups = programs.split(todo, self.device.programs_at_once(len(todo)))
        sources = [programs.source(group) for group in groups]
        keys = [source_key(source, self.options) for source in sources]
        binaries = [self.cache.get(key) if self.cache else None for key in keys]
        elsewhere = self.device.builds_in_processes
        children = [self.device.build_elsewhere(source, self.options)
                    if elsewhere and i and binary is None else None
                    for i, (source, binary) in enumerate(zip(sources, binaries))]
        names = ", ".join(dict.fromkeys(v.kernel for v in todo))
        t0 = time.perf_counter()

        def text(done: int) -> str:
            return f"compiling {len(todo)} OpenCL kernels, {done} of {len(groups)} programs done: {names}"

        said = []
        with self.progress(text(0)) as step, ThreadPoolExecutor(len(groups)) as pool:
            made = pool.map(self._program, groups, sources, keys, binaries, children)
            try:
                for done, (group, (program, how)) in enumerate(zip(groups, made), 1):
                    self.kernels.update({v: (program, programs.entry_point(v, i)) for i, v in enumerate(group)})
                    said.append(how)
                    step.say(text(done))
            except BaseException:  # a failed build: the children's programs are of no use
                for child in filter(None, children):
                    child.cancel()
                raise
        for how in said:  # once every build is done: a build silences stderr while it runs
            _log.log(DETAIL, "%s", how)
        self.compile_s += time.perf_counter() - t0

    def _program(self, variants: list[Variant], source: str, key: str, binary: bytes | None,
                 child: ChildBuild | None) -> tuple[object, str]:
        """The program of `variants` and a line saying how it was made (for GPUCOMPAT_DEBUG=3)."""
        labels = [v.label for v in variants]
        what = f"building OpenCL kernels {', '.join(dict.fromkeys(labels))} for {self.device.name}"
        t0 = time.perf_counter()
        cached, how = binary is not None, "loaded from the cache"
        if binary is None and child is not None and (binary := child.binary()) is not None:
            how = "compiled in a child process"
            if self.cache:
                self.cache.put(key, binary)
        if binary is not None:
            program = self.device.load_binary(binary, what)
        else:
            how = "compiled"
            program = self.device.build(source, self.options, what)
            if self.cache:
                self.cache.put(key, Device.binary_of(program))
        (self.loaded if cached else self.built).extend(labels)
        return program, f"{what}: {how} in {time.perf_counter() - t0:.2f} s"

    def build(self) -> None:
        """Compile what the launches prepared so far need, and bind them; on a device taken before
        its probe ended, wait for the probe (device.PassedOver when it failed: a build error there
        is the driver's, not the model's)."""
        pending, self.pending = self.pending, []
        chosen = self._variants(pending)
        try:
            self.compile([variant for variant, _ in chosen])
        finally:
            self.device.confirm()
        for launch, (variant, extra) in zip(pending, chosen):
            launch.bind(*self.kernels[variant], extra)

    def _variants(self, launches: list[Launch]) -> list[tuple[Variant, list]]:
        """The variant each launch runs and the extra arguments it takes: a kernel launched with one
        epilogue is compiled with that one; with several, once with all of them (fusion.shared),
        each launch choosing its own."""
        used: dict[tuple[str, str], dict[str, Epilogue]] = {}
        for launch in launches:
            used.setdefault((launch.family, launch.name), {}).setdefault(launch.linked.source, launch.linked)
        sharing = {}  # kernel -> (its epilogues' sources in index order, definitions, operand slots)
        for kernel, kinds in used.items():
            if len(kinds) > 1:
                order = sorted(kinds)
                sharing[kernel] = (order, *shared([kinds[k] for k in order]))
        chosen = []
        for launch in launches:
            kernel = (launch.family, launch.name)
            if kernel not in sharing:
                source = "" if launch.linked is PLAIN else launch.linked.source
                chosen.append((Variant(*kernel, source), launch.linked.args))
                continue
            order, definitions, slots = sharing[kernel]
            extra = shared_arguments(launch.linked, slots, order.index(launch.linked.source), self._unused())
            chosen.append((Variant(*kernel, definitions), extra))
        return chosen

    def _unused(self):
        """A one-cell buffer passed for an operand a launch's epilogue does not read."""
        if self.unused is None:
            self.unused = self._buffer(np.zeros(4, self.storage))
        return self.unused

    def prepare(self, family: str, kernel: str, size: tuple[int, ...], *args, epilogue: Epilogue = PLAIN,
                local: tuple[int, ...] | None = None) -> Launch:
        """A launch of one kernel over a global size with its arguments bound at load, so a run only
        enqueues (its kernel compiled by `build`, with every other launch prepared by then);
        `epilogue`: the ops fused into it (their arguments are added at `build`).
        Arguments: ints become int, floats float, tuples the matching int2 / int4 / float2 vector,
        GpuTensors their buffer; buffers pass as they are. `local` is an explicit work-group size
        (the global size is rounded up to a multiple of it, so the kernel must ignore work-items
        past its output); None lets the driver choose."""
        grid = tuple(max(1, int(s)) for s in size)
        if local is not None:
            grid = tuple(-(-g // n) * n for g, n in zip(grid, local))
        launch = Launch(self, family, kernel, epilogue, grid, local, [_argument(a) for a in args],
                        f"kernel {family}.{kernel}")
        self.pending.append(launch)
        return launch

    def _buffer(self, host: np.ndarray):
        pcl = cl()
        flags = pcl.mem_flags.READ_WRITE | pcl.mem_flags.COPY_HOST_PTR
        try:
            return pcl.Buffer(self.device.context, flags, hostbuf=np.ascontiguousarray(host))
        except pcl.Error as e:  # a zero-element tensor (OpenCL has no empty buffers), or too large
            raise describe(e, f"allocating a device buffer of {host.nbytes} bytes") from None

    def empty(self, shape: BHWC) -> GpuTensor:
        """An uninitialised tensor (zeros, so padding lanes start defined)."""
        return GpuTensor(self._buffer(np.zeros(shape.vec4s * 4, self.storage)), shape)

    def upload(self, array: np.ndarray, shape: BHWC) -> GpuTensor:
        """BHWC host data -> a PHWC4 tensor in the storage type (the delegate's input conversion)."""
        return GpuTensor(self._buffer(to_phwc4(np.asarray(array, np.float32), shape).astype(self.storage)), shape)

    def write(self, tensor: GpuTensor, array: np.ndarray) -> np.ndarray:
        """Queue the overwrite of a device tensor with BHWC host data (a partition input, each run)
        without waiting; returns the staging array, which must live until the queue is finished."""
        host = to_phwc4(np.asarray(array, np.float32), tensor.shape).astype(self.storage, copy=False)
        pcl = cl()
        try:
            pcl.enqueue_copy(self.device.queue, tensor.buffer, host, is_blocking=False)
        except pcl.Error as e:
            raise describe(e, "copying an input to the device") from None
        return host

    def download(self, *tensors: GpuTensor) -> list[np.ndarray]:
        """PHWC4 tensors -> float32 BHWC host data (the delegate's output conversion): every read
        queued, then one wait."""
        hosts = [np.empty(t.shape.vec4s * 4, self.storage) for t in tensors]
        pcl = cl()
        try:
            for t, host in zip(tensors, hosts):
                pcl.enqueue_copy(self.device.queue, host, t.buffer, is_blocking=False)
            self.finish()
        except pcl.Error as e:
            raise describe(e, "reading results back from the device") from None
        return [from_phwc4(host, t.shape).astype(np.float32) for t, host in zip(tensors, hosts)]

    def weights(self, array: np.ndarray):
        """Constant parameters (filters, biases) as a flat buffer in the storage type."""
        return self._buffer(np.asarray(array, np.float32).astype(self.storage).ravel())

    def indices(self, array: np.ndarray):
        """An int32 buffer (index maps of data-movement ops)."""
        return self._buffer(np.asarray(array, np.int32).ravel())

    def finish(self) -> None:
        """Wait for every queued kernel."""
        self.device.queue.finish()


def _argument(a):
    pcl = cl()
    if isinstance(a, GpuTensor):
        return a.buffer
    if isinstance(a, (bool, int, np.integer)):
        return np.int32(a)
    if isinstance(a, (float, np.floating)):
        return np.float32(a)
    if isinstance(a, tuple):
        kind = "float" if any(isinstance(v, (float, np.floating)) for v in a) else "int"
        return getattr(pcl.cltypes, f"make_{kind}{len(a)}")(*a)
    return a
