"""The `cpu_runtimes` fixture: runtimes (fp32, fp16) on each CPU OpenCL runtime the kernels are
tuned for, PoCL and Intel's, for tests whose kernels must give the same values on both."""

import pytest

from gpucompat.opencl.device import CLError, choose
from gpucompat.opencl.probe import probe
from gpucompat.opencl.runtime import Runtime


@pytest.fixture(scope="module", params=["Portable", "Intel(R) OpenCL"])
def cpu_runtimes(request):
    """Runtimes (fp32, fp16) on each CPU OpenCL runtime the kernels are tuned for: PoCL and Intel's,
    whose compilers differ (a test skips naming the one that is missing)."""
    try:
        device = choose(request.param)
    except CLError as e:
        pytest.skip(f"no {request.param} OpenCL device: {e}")
    answer = probe(device.device, None)
    if not answer.works:  # CI's Intel pass makes every PoCL build fail
        pytest.skip(f"the {request.param} OpenCL device does not build kernels here: {answer.why}")
    return {p: Runtime(device, p) for p in ("fp32", "fp16")}
