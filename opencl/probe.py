"""Does an OpenCL device really run the executor's kernels? Build and run one small kernel that uses
what they use (OpenCL C 1.2, float4 cells, tanh / exp, half storage through vstore_half) and
compare its numbers with NumPy's.

A device can be listed and still fail every build (PoCL 3.0's LLVM 14 on a CPU it does not know:
"unknown target CPU 'generic'"). The answer is kept in the program cache directory per device,
driver and driver settings, so only the first run on a machine pays for the probe.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass

import numpy as np

from gpucompat.opencl.cache import write_quietly
from gpucompat.opencl.device import (
    cl,
    compiler_output_quiet,
    describe,
    device_key,
    driver_settings,
    native_stderr_silenced,
)

SOURCE = r"""
__kernel void probe(__global const float4* cells, __global float* out, __global half* out_half) {
  int i = get_global_id(0);
  float4 v = cells[i];
  float s = tanh(v.x) + exp(v.y) + v.z * v.w;
  out[i] = s;
  vstore_half(s, i, out_half);
}
"""
OPTIONS = ["-cl-std=CL1.2"]  # as the executor's kernels are built (runtime.py)
CELLS = 64


@dataclass
class ProbeResult:
    """Whether the probe kernel built and ran right, why not, and how long finding out took."""

    works: bool
    why: str = ""
    seconds: float = 0.0
    cached: bool = False


def _expected(cells: np.ndarray) -> np.ndarray:
    x, y, z, w = cells.T.astype(np.float64)
    return np.tanh(x) + np.exp(y) + z * w


def _run(device) -> None:
    """Build and run the probe on `device`; an exception saying what went wrong otherwise."""
    pcl = cl()
    cells = np.random.default_rng(0).uniform(-2, 2, (CELLS, 4)).astype(np.float32)
    ctx = pcl.Context([device])
    queue = pcl.CommandQueue(ctx)
    with native_stderr_silenced(), compiler_output_quiet():
        program = pcl.Program(ctx, SOURCE).build(options=OPTIONS, cache_dir=False)
    flags = pcl.mem_flags
    src = pcl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=cells)
    out, out_half = np.zeros(CELLS, np.float32), np.zeros(CELLS, np.float16)
    dst = pcl.Buffer(ctx, flags.WRITE_ONLY, out.nbytes)
    dst_half = pcl.Buffer(ctx, flags.WRITE_ONLY, out_half.nbytes)
    program.probe(queue, (CELLS,), None, src, dst, dst_half)
    pcl.enqueue_copy(queue, out, dst)
    pcl.enqueue_copy(queue, out_half, dst_half)
    queue.finish()
    want = _expected(cells)
    if not np.allclose(out, want, rtol=1e-4, atol=1e-4):
        raise ValueError(f"the probe kernel computed wrong numbers (worst error {np.max(np.abs(out - want)):.3g})")
    if not np.allclose(out_half, want, rtol=2e-3, atol=2e-3):
        raise ValueError("the probe kernel stored wrong half-precision numbers")


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else "no message"


def _settings_digest() -> str:
    return hashlib.sha256(json.dumps([SOURCE, OPTIONS, list(driver_settings())]).encode()).hexdigest()[:16]


def result_path(device, cache_dir: str) -> str:
    """Where the probe answer for `device` under the current driver settings is kept."""
    return os.path.join(cache_dir, device_key(device), f"probe-{_settings_digest()}.json")


def _read(path: str) -> ProbeResult | None:
    try:
        with open(path) as f:
            doc = json.load(f)
        return ProbeResult(bool(doc["works"]), str(doc["why"]), float(doc["seconds"]), cached=True)
    except (OSError, ValueError, KeyError, TypeError):  # absent, unreadable or damaged: probe again
        return None


def _write(path: str, result: ProbeResult) -> None:
    """Keep the answer (atomically); a read-only directory only costs the next run a probe."""
    record = {k: v for k, v in asdict(result).items() if k != "cached"}
    write_quietly(path, json.dumps(record).encode(), ".probe-")


def kept(device, cache_dir: str) -> ProbeResult | None:
    """The probe's answer for `device` kept from an earlier run in `cache_dir`, if any."""
    return _read(result_path(device, cache_dir))


def probe(device, cache_dir: str | None) -> ProbeResult:
    """The probe's answer for `device`: kept from an earlier run in `cache_dir` (None: no keeping),
    else found now. Any failure of the driver counts as "does not work", with its reason."""
    path = result_path(device, cache_dir) if cache_dir else None
    answer = _read(path) if path else None
    if answer is not None:
        return answer
    t0 = time.perf_counter()
    try:
        _run(device)
        result = ProbeResult(True)
    except cl().Error as e:
        result = ProbeResult(False, str(describe(e, "the probe kernel")))
    except Exception as e:  # noqa: BLE001 - a driver may fail in any way; each is a reason to pass it over
        result = ProbeResult(False, f"the probe kernel: {type(e).__name__}: {_first_line(e)}")
    result.seconds = round(time.perf_counter() - t0, 3)
    if path:
        _write(path, result)
    return result
