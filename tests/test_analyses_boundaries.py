"""CPU<->GPU boundaries: which tensors cross into and out of each delegate kernel, and their bytes."""

from analysis_helpers import analyses_of


def crossings(kernel):
    return sorted((c.direction, tuple(c.shape), c.bytes) for c in kernel.crossings)


def test_one_kernel_after_a_cpu_op(models):
    # conv | GATHER_ND (CPU) | mul, add, tanh: the kernel reads GATHER_ND's [2,4,4] float output
    # (128 bytes) and writes the [2,4,4] model output (128 bytes); the scalar constants stay.
    _, a = analyses_of(models.path("gather_nd_island"))
    [k] = a.boundaries.kernels
    assert k.nodes == [2, 3, 4]
    assert crossings(k) == [("in", (2, 4, 4), 128), ("out", (2, 4, 4), 128)]
    assert (a.boundaries.round_trips, a.boundaries.bytes_per_inference) == (1, 256)


def test_two_kernels_two_round_trips(models):
    _, a = analyses_of(models.path("gather_nd_island"), max_delegated_partitions=2)
    first, second = a.boundaries.kernels
    assert first.nodes == [0]
    assert crossings(first) == [("in", (1, 4, 4, 4), 256), ("out", (1, 4, 4, 4), 256)]
    assert a.boundaries.round_trips == 2 and a.boundaries.bytes_per_inference == 512 + 256


def test_rgb_input_is_flagged(models):
    _, a = analyses_of(models.path("conv_relu"))
    [k] = a.boundaries.kernels
    [rgb] = [c for c in k.crossings if c.three_channels]
    assert (tuple(rgb.shape), rgb.bytes, rgb.graph_input, rgb.quantized) == \
        ((1, 16, 16, 3), 16 * 16 * 3 * 4, True, False)


def test_quantized_io_is_flagged(models):
    _, a = analyses_of(models.path("int8_io_conv"))
    [k] = a.boundaries.kernels
    assert sorted((c.direction, c.dtype, c.bytes, c.quantized) for c in k.crossings) == [
        ("in", "INT8", 48, True), ("out", "INT8", 64, True)]
