"""One-op models between a runtime input and a constant, for the law of forms (issue 23), written
with the IR builder (tests/irbuild.py) as TensorFlow's converter writes them: the forms LiteRT
2.3.0's accelerator computes wrongly that the example-keyed rules missed, right forms of the same
ops, and a delegated form the numerics grid never measured. All names start with "formlaw_"."""

from collections.abc import Callable

import numpy as np

from irbuild import IRModel, one_op, options
from modelgen import builder, const, convert_fn, tf

# name: a function building the model
WRONG: dict[str, Callable[[], bytes]] = {
    "add_r1_c3": lambda: one_op("ADD", [8], const([2, 1, 8], 1)),
    "mul_r1_c4": lambda: one_op("MUL", [8], const([1, 1, 1, 8], 2)),
    "maximum_r2_c3": lambda: one_op("MAXIMUM", [7, 8], const([1, 7, 8], 3)),
    "minimum_r2_c3": lambda: one_op("MINIMUM", [7, 8], const([1, 7, 8], 4)),
    "squared_difference_r2_same": lambda: one_op("SQUARED_DIFFERENCE", [6, 8], const([6, 8], 5)),
    "mul_r3_c4": lambda: one_op("MUL", [5, 7, 8], const([1, 5, 7, 8], 6)),
    "add_r0_c2": lambda: one_op("ADD", [], const([2, 1], 7)),
    "softmax_r1": lambda: one_op("SOFTMAX", [8]),
    "mirror_pad_r3": lambda: one_op("MIRROR_PAD", [6, 6, 8], np.array([[1, 1], [1, 1], [0, 0]], np.int32),
                                    mode=0),  # REFLECT
}
RIGHT: dict[str, Callable[[], bytes]] = {
    "add_r3_bias": lambda: one_op("ADD", [5, 7, 8], const([8], 1)),
    "mul_r4_channel": lambda: one_op("MUL", [2, 3, 5, 8], const([1, 1, 1, 8], 2)),
    "maximum_r4_same": lambda: one_op("MAXIMUM", [1, 3, 5, 8], const([1, 3, 5, 8], 3)),
    "softmax_r2": lambda: one_op("SOFTMAX", [4, 8]),
    "transpose_r3": lambda: one_op("TRANSPOSE", [2, 5, 8], np.array([0, 2, 1], np.int32)),
    "exp_r3": lambda: one_op("EXP", [2, 5, 8]),
    "mirror_pad_r4": lambda: one_op("MIRROR_PAD", [1, 6, 6, 8], np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32),
                                    mode=0),  # REFLECT
}
def _strided_slice_step4() -> bytes:
    """x[:, :, :, ::4] of a [1, 6, 6, 8] input, as the converter writes it."""
    m = IRModel(signature="serving_default")
    ints = [np.array(v, np.int32) for v in ([0, 0, 0, 0], [1, 6, 6, 8], [1, 1, 1, 4])]
    m.output(m.op("STRIDED_SLICE", [m.input("x", [1, 6, 6, 8]), *(m.const(f"c{j}", v) for j, v in enumerate(ints))],
                  [1, 6, 6, 2], options=options("StridedSlice")))
    return m.bytes()


# a STRIDED_SLICE with step 4 is delegated under litert-mldrift, and the grid measures steps 1-3 only
UNMEASURED_FORM = "STRIDED_SLICE rank 4 step 4 on axes 3"
UNMEASURED: dict[str, Callable[[], bytes]] = {"strided_slice_step4_r4": _strided_slice_step4}

for _name, _build in {**WRONG, **RIGHT, **UNMEASURED}.items():
    builder(f"formlaw_{_name}")(_build)

F = np.float32

# FULLY_CONNECTED as TensorFlow's converter writes it (it picks the rank, keep_num_dims and the bias
# itself; tests/test_form_law_converter.py): name -> (a function of TensorFlow giving the model's
# function, input specs)
CONVERTED_WRONG = {
    # the converter writes a FULLY_CONNECTED of the rank-1 input, keeping its rank
    "fully_connected_r1": (lambda t: lambda a: t.linalg.matvec(const([16, 8], 8).T, a), [([16], F)]),
}
CONVERTED_RIGHT = {
    "fully_connected_r2": (lambda t: lambda a: t.matmul(a, const([16, 8], 8)) + const([8], 9), [([4, 16], F)]),
    "fully_connected_r3": (lambda t: lambda a: t.matmul(a, const([16, 8], 8)) + const([8], 9), [([2, 5, 16], F)]),
}


def _converted(fn, specs) -> Callable[[], bytes]:
    return lambda: convert_fn(fn(tf()), specs)


for _name, (_fn, _specs) in {**CONVERTED_WRONG, **CONVERTED_RIGHT}.items():
    builder(f"formlaw_{_name}")(_converted(_fn, _specs))
