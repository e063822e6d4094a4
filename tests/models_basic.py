"""Small float models used across the suite (IR, partitioning, CLI)."""

from modelgen import builder, const, convert_fn, tf


@builder("conv_relu")
def conv_relu() -> bytes:
    """CONV_2D -> RELU6 -> MEAN -> FULLY_CONNECTED: fully supported everywhere."""
    t = tf()
    w, fcw = const([3, 3, 3, 8]), const([8, 4], seed=1)

    def f(x):
        y = t.nn.relu6(t.nn.conv2d(x, w, 1, "SAME"))
        return t.matmul(t.reduce_mean(y, axis=[1, 2]), fcw)

    return convert_fn(f, [([1, 16, 16, 3], t.float32)])


@builder("gather_nd_island")
def gather_nd_island() -> bytes:
    """Two GPU islands split by GATHER_ND (unsupported by every profile)."""
    t = tf()
    w = const([1, 1, 4, 4])

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, w, 1, "SAME"))
        y = t.gather_nd(y, [[0, 1], [0, 2]])
        return t.tanh(y * 2.0 + 1.0)

    return convert_fn(f, [([1, 4, 4, 4], t.float32)])


@builder("floor_transpose")
def floor_transpose() -> bytes:
    """FLOOR (no OpenCL kernel in the classic delegate) beside TRANSPOSE (no OpenGL kernel)."""
    t = tf()

    def f(x):
        return t.transpose(t.floor(x) * 2.0, [0, 2, 1, 3])

    return convert_fn(f, [([1, 4, 6, 8], t.float32)])
