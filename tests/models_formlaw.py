"""One-op models as TensorFlow's converter writes them, between a runtime input and a constant,
for the law of forms (issue 23): the forms LiteRT 2.3.0's accelerator computes wrongly that the
example-keyed rules missed, right forms of the same ops, and a delegated form the numerics grid
never measured. All names start with "formlaw_"."""

import numpy as np

from modelgen import builder, const, convert_fn, tf

F = np.float32

# name: (a function of TensorFlow giving the model's function, input specs)
WRONG = {
    "add_r1_c3": (lambda t: lambda a: a + const([2, 1, 8], 1), [([8], F)]),
    "mul_r1_c4": (lambda t: lambda a: a * const([1, 1, 1, 8], 2), [([8], F)]),
    "maximum_r2_c3": (lambda t: lambda a: t.maximum(a, const([1, 7, 8], 3)), [([7, 8], F)]),
    "minimum_r2_c3": (lambda t: lambda a: t.minimum(a, const([1, 7, 8], 4)), [([7, 8], F)]),
    "squared_difference_r2_same": (lambda t: lambda a: t.math.squared_difference(a, const([6, 8], 5)),
                                   [([6, 8], F)]),
    "mul_r3_c4": (lambda t: lambda a: a * const([1, 5, 7, 8], 6), [([5, 7, 8], F)]),
    "add_r0_c2": (lambda t: lambda a: a + const([2, 1], 7), [([], F)]),
    "softmax_r1": (lambda t: lambda a: t.nn.softmax(a), [([8], F)]),
    # the converter writes a FULLY_CONNECTED of the rank-1 input, keeping its rank
    "fully_connected_r1": (lambda t: lambda a: t.linalg.matvec(const([16, 8], 8).T, a), [([16], F)]),
}
RIGHT = {
    "add_r3_bias": (lambda t: lambda a: a + const([8], 1), [([5, 7, 8], F)]),
    "mul_r4_channel": (lambda t: lambda a: a * const([1, 1, 1, 8], 2), [([2, 3, 5, 8], F)]),
    "maximum_r4_same": (lambda t: lambda a: t.maximum(a, const([1, 3, 5, 8], 3)), [([1, 3, 5, 8], F)]),
    "softmax_r2": (lambda t: lambda a: t.nn.softmax(a), [([4, 8], F)]),
    "transpose_r3": (lambda t: lambda a: t.transpose(a, [0, 2, 1]), [([2, 5, 8], F)]),
    "exp_r3": (lambda t: lambda a: t.exp(a), [([2, 5, 8], F)]),
    "fully_connected_r2": (lambda t: lambda a: t.matmul(a, const([16, 8], 8)) + const([8], 9), [([4, 16], F)]),
    "fully_connected_r3": (lambda t: lambda a: t.matmul(a, const([16, 8], 8)) + const([8], 9), [([2, 5, 16], F)]),
}
# MIRROR_PAD is delegated under litert-mldrift, and the grid has no form of it
UNMEASURED = {
    "mirror_pad_r4": (lambda t: lambda a: t.pad(a, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT"),
                      [([1, 6, 6, 8], F)]),
}


def _register(name: str, fn, specs) -> None:
    builder(f"formlaw_{name}")(lambda: convert_fn(fn(tf()), specs))


for _name, (_fn, _specs) in {**WRONG, **RIGHT, **UNMEASURED}.items():
    _register(_name, _fn, _specs)
