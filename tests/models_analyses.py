"""Small models whose costs are worked out by hand in tests/test_analyses_*.py, written op by op with
the IR builder (tests/irbuild.py) as TensorFlow's converter writes them."""

import numpy as np

from irbuild import IRModel, conv_options, options
from modelgen import builder, const
from models_basic import conv_then_gather

ODD_CHANNELS = (1, 2, 3, 5, 6, 7, 9)


def conv_1x1(m: IRModel, x: int, shape_in: list, channels: int, seed: int = 0) -> int:
    """A 1x1 VALID CONV_2D of `x` to `channels` (zero bias, modelgen.const weights)."""
    w = const([1, 1, shape_in[-1], channels], seed=seed)
    return m.op("CONV_2D", [x, m.const(f"conv{seed}/w", w.transpose(3, 0, 1, 2)),
                            m.const(f"conv{seed}/b", np.zeros(channels, np.float32))],
                [*shape_in[:-1], channels], options=conv_options(padding="VALID"))


@builder("channels_1_to_9")
def channels_1_to_9() -> bytes:
    """One TANH per input of shape [1, 2, 2, C], C in ODD_CHANNELS: every tensor on the GPU."""
    m = IRModel(signature="serving_default")
    xs = [m.input(f"x{c}", [1, 2, 2, c]) for c in ODD_CHANNELS]
    m.output(*(m.op("TANH", [x], [1, 2, 2, c]) for x, c in zip(xs, ODD_CHANNELS)))
    return m.bytes()


@builder("conv_3_5_8")
def conv_3_5_8() -> bytes:
    """[1,2,2,3] -> 1x1 CONV_2D to 5 channels -> 1x1 CONV_2D to 8 channels."""
    m = IRModel(signature="serving_default")
    y = conv_1x1(m, m.input("x", [1, 2, 2, 3]), [1, 2, 2, 3], 5)
    m.output(conv_1x1(m, y, [1, 2, 2, 5], 8, seed=1))
    return m.bytes()


@builder("conv_4_8")
def conv_4_8() -> bytes:
    """[1,2,2,4] -> 1x1 CONV_2D to 8 channels: multiples of 4 only, no padding."""
    m = IRModel(signature="serving_default")
    m.output(conv_1x1(m, m.input("x", [1, 2, 2, 4]), [1, 2, 2, 4], 8))
    return m.bytes()


@builder("reshapes")
def reshapes() -> bytes:
    """Data-movement ops with known sizes: an expensive and a cheap RESHAPE, CONCATENATION on a
    spatial and on the channel axis, TRANSPOSE and SPACE_TO_DEPTH."""
    m = IRModel(signature="serving_default")
    x, z, y = m.input("x", [1, 4, 4, 6]), m.input("z", [1, 2, 2, 8]), m.input("y", [1, 2, 2, 2])

    def reshape(t: int, shape: list) -> int:
        return m.op("RESHAPE", [t, m.const(f"shape{len(m.graph.rec.operators)}", np.array(shape, np.int32))], shape)

    m.output(reshape(x, [1, 16, 6]),  # C 6 -> 6: generic kernel, 96 floats
             reshape(z, [1, 4, 8]),  # C 8 -> 8: Reshapex4, cheap
             m.op("SPACE_TO_DEPTH", [y], [1, 1, 1, 8], options=options("SpaceToDepth", blockSize=2)),  # 8 floats
             m.op("CONCATENATION", [x, x], [1, 8, 4, 6], options=options("Concatenation", axis=1)),  # 192 floats
             m.op("CONCATENATION", [z, z], [1, 2, 2, 16], options=options("Concatenation", axis=3)),  # in place
             m.op("TRANSPOSE", [x, m.const("perm", np.array([0, 2, 1, 3], np.int32))], [1, 4, 4, 6]))  # 96 floats
    return m.bytes()


@builder("two_gathers")
def two_gathers() -> bytes:
    """conv -> GATHER_ND -> tanh -> GATHER_ND -> tanh -> mul: GPU[0] CPU[1] GPU[2] CPU[3] GPU[4, 5]."""
    m = IRModel(signature="serving_default")
    c = m.op("TANH", [conv_then_gather(m, m.input("x", [1, 4, 4, 4]), [[0, 1], [0, 2]])], [2, 4, 4])
    c = m.op("GATHER_ND", [c, m.const("gather2/indices", np.array([[1]], np.int32))], [1, 4, 4])
    c = m.op("TANH", [c], [1, 4, 4])
    m.output(m.op("MUL", [c, m.const("three", np.float32(3.0))], [1, 4, 4], options=options("Mul")))
    return m.bytes()


@builder("int8_io_conv")
def int8_io_conv() -> bytes:
    """A full-integer 1x1 conv with int8 input and output, input [1,4,4,3]: int8 weights with one
    scale per output channel and an int32 bias, as the converter's full-integer recipe writes them."""
    m = IRModel(signature="serving_default")
    x_scale, w = 0.0228, const([1, 1, 3, 4]).transpose(3, 0, 1, 2)
    w_scales = np.abs(w).reshape(4, -1).max(axis=1) / 127
    x = m.input("x", [1, 4, 4, 3], "INT8", quantization=(x_scale, -9))
    weights = m.const("conv/w", np.round(w / w_scales[:, None, None, None]).astype(np.int8),
                      quantization=(list(w_scales), [0] * 4, 0))
    bias = m.const("conv/b", np.zeros(4, np.int32), quantization=(list(w_scales * x_scale), [0] * 4, 0))
    m.output(m.op("CONV_2D", [x, weights, bias], [1, 4, 4, 4], "INT8", options=conv_options(padding="VALID"),
                  version=3, quantization=(0.0165, -4)))
    return m.bytes()
