"""Small models whose costs are worked out by hand in tests/test_analyses_*.py."""

from modelgen import builder, const, convert_fn, tf

ODD_CHANNELS = (1, 2, 3, 5, 6, 7, 9)


@builder("channels_1_to_9")
def channels_1_to_9() -> bytes:
    """One TANH per input of shape [1, 2, 2, C], C in ODD_CHANNELS: every tensor on the GPU."""
    t = tf()
    return convert_fn(lambda *xs: [t.tanh(x) for x in xs], [([1, 2, 2, c], t.float32) for c in ODD_CHANNELS])


@builder("conv_3_5_8")
def conv_3_5_8() -> bytes:
    """[1,2,2,3] -> 1x1 CONV_2D to 5 channels -> 1x1 CONV_2D to 8 channels."""
    t = tf()
    w1, w2 = const([1, 1, 3, 5]), const([1, 1, 5, 8], seed=1)
    return convert_fn(lambda x: t.nn.conv2d(t.nn.conv2d(x, w1, 1, "VALID"), w2, 1, "VALID"),
                      [([1, 2, 2, 3], t.float32)])


@builder("conv_4_8")
def conv_4_8() -> bytes:
    """[1,2,2,4] -> 1x1 CONV_2D to 8 channels: multiples of 4 only, no padding."""
    t = tf()
    w = const([1, 1, 4, 8])
    return convert_fn(lambda x: t.nn.conv2d(x, w, 1, "VALID"), [([1, 2, 2, 4], t.float32)])


@builder("reshapes")
def reshapes() -> bytes:
    """Data-movement ops with known sizes: an expensive and a cheap RESHAPE, CONCATENATION on a
    spatial and on the channel axis, TRANSPOSE and SPACE_TO_DEPTH."""
    t = tf()

    def f(x, z, y):
        return [t.reshape(x, [1, 16, 6]),            # C 6 -> 6: generic kernel, 96 floats
                t.concat([x, x], axis=1),            # spatial axis: 192 floats copied
                t.transpose(x, [0, 2, 1, 3]),        # 96 floats
                t.reshape(z, [1, 4, 8]),             # C 8 -> 8: Reshapex4, cheap
                t.concat([z, z], axis=3),            # channel axis: in place
                t.nn.space_to_depth(y, 2)]           # [1,1,1,8]: 8 floats

    return convert_fn(f, [([1, 4, 4, 6], t.float32), ([1, 2, 2, 8], t.float32), ([1, 2, 2, 2], t.float32)])


@builder("two_gathers")
def two_gathers() -> bytes:
    """conv -> GATHER_ND -> tanh -> GATHER_ND -> tanh -> mul: GPU[0] CPU[1] GPU[2] CPU[3] GPU[4, 5]."""
    t = tf()
    w = const([1, 1, 4, 4])

    def f(x):
        a = t.nn.relu(t.nn.conv2d(x, w, 1, "SAME"))
        c = t.tanh(t.gather_nd(a, [[0, 1], [0, 2]]))
        return t.tanh(t.gather_nd(c, [[1]])) * 3.0

    return convert_fn(f, [([1, 4, 4, 4], t.float32)])


@builder("int8_io_conv")
def int8_io_conv() -> bytes:
    """A full-integer 1x1 conv with int8 input and output, input [1,4,4,3]."""
    t = tf()
    w = const([1, 1, 3, 4])
    return convert_fn(lambda x: t.nn.conv2d(x, w, 1, "VALID"), [([1, 4, 4, 3], t.float32)], quantize="int8-io")
