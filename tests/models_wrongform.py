"""The forms of issue 18's table, and the batch broadcasts the numerics grid found, one small model
each, written with the IR builder (tests/irbuild.py) as TensorFlow's converter writes them:
LiteRT 2.3.0's GPU accelerator delegates them whole and computes them wrongly (GPU005), and their
rank-4 twins, which it computes right. All names start with "wrongform_"."""

import numpy as np

from irbuild import IRModel, one_op, options
from modelgen import builder, const

F = np.float32


def _pads(*amounts) -> np.ndarray:
    return np.array(amounts, np.int32)


FORMS = {
    "pad3_mid": lambda: one_op("PAD", [16, 32, 1], _pads([0, 0], [16, 16], [0, 0])),
    "add_mixed_rank": lambda: one_op("ADD", [85, 16], const([1, 85, 16], 1)),
    "mul_channel_rank3": lambda: one_op("MUL", [512, 1024], const([1, 1, 1024], 2)),
    "add_scalar_arange": lambda: one_op("ADD", [], np.arange(4, dtype=F)),
    "add_same_2d": lambda: one_op("ADD", [4096, 256], const([4096, 256], 3)),
    "mul_scalar_table": lambda: one_op("MUL", [], const([64, 16], 4)),
    # a runtime operand broadcast across the batch of a constant [2, ...]: wrong at any rank
    "add_batch_const": lambda: one_op("ADD", [8, 16], const([2, 4, 8, 16], 5)),
    "mul_channel_batch_const": lambda: one_op("MUL", [16], const([2, 4, 8, 16], 6)),
    "sub_from_batch_const": lambda: one_op("SUB", [4, 8, 16], const([2, 4, 8, 16], 7), operand_first=True),
    "pad4_mid": lambda: one_op("PAD", [1, 16, 32, 1], _pads([0, 0], [0, 0], [16, 16], [0, 0])),
    "add_same_4d": lambda: one_op("ADD", [1, 8, 85, 16], const([1, 8, 85, 16], 3)),
}
for _name, _build in FORMS.items():
    builder(f"wrongform_{_name}")(_build)


def _pad3(m: IRModel, x: int) -> int:
    """The rank-3 PAD of two rows on axis 1 the accelerator computes wrongly, of an [8, 16, 4] tensor."""
    return m.op("PAD", [x, m.const("pad/paddings", _pads([0, 0], [2, 2], [0, 0]))], [8, 20, 4], options=options("Pad"))


@builder("wrongform_chain")
def _chain() -> bytes:
    """TANH, then the rank-3 PAD the accelerator computes wrongly, then a MUL: --localize must name the PAD."""
    m = IRModel(signature="serving_default")
    padded = _pad3(m, m.op("TANH", [m.input("x", [8, 16, 4])], [8, 16, 4]))
    m.output(m.op("MUL", [padded, m.const("three", F(3.0))], [8, 20, 4], options=options("Mul")))
    return m.bytes()


@builder("wrongform_partly")
def _partly() -> bytes:
    """The wrong rank-3 PAD, then an op the accelerator does not take (ADD of the result and a
    runtime rank-0 tensor): the model runs partly delegated."""
    m = IRModel(signature="serving_default")
    x, s = m.input("x", [8, 16, 4]), m.input("s", [])
    m.output(m.op("ADD", [_pad3(m, x), s], [8, 20, 4], options=options("Add")))
    return m.bytes()
