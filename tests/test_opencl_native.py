"""opencl/native.py: the builder child's OpenCL calls through ctypes. What it builds loads and runs
in a pyopencl context like a program built there; what it cannot build or find is a NativeError
naming the call."""

import numpy as np
import pytest

from gpucompat.opencl import native
from gpucompat.opencl.device import choose

pytestmark = pytest.mark.opencl

DOUBLE = "__kernel void double_it(__global float* a) { int i = get_global_id(0); a[i] = 2.0f * a[i] + 1.0f; }"


@pytest.fixture(scope="module")
def device():
    chosen = choose()
    if not chosen.builds_in_processes:
        pytest.skip(f"needs PoCL (the only runtime built in child processes); the device here is {chosen.name}")
    return chosen


def test_a_binary_built_through_ctypes_runs_in_a_pyopencl_context(device):
    import pyopencl as cl

    binary = native.binary(device.device.platform.name, device.device.name, DOUBLE, ["-cl-std=CL1.2"])
    program = device.load_binary(binary, "the test kernel")
    values = np.arange(8, dtype=np.float32)
    buffer = cl.Buffer(device.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
    program.double_it(device.queue, values.shape, None, buffer)
    out = np.empty_like(values)
    cl.enqueue_copy(device.queue, out, buffer)
    np.testing.assert_array_equal(out, 2 * values + 1)


def test_source_that_does_not_compile_is_an_error_naming_the_build(device):
    with pytest.raises(native.NativeError, match="clBuildProgram"):
        native.binary(device.device.platform.name, device.device.name, "__kernel void broken( {", [])


def test_a_device_not_there_is_an_error_naming_it(device):
    with pytest.raises(native.NativeError, match="no device 'no such device'"):
        native.binary(device.device.platform.name, "no such device", DOUBLE, [])
