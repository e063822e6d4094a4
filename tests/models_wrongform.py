"""The forms of issue 18's table, and the batch broadcasts the numerics grid found, one small model
each, as TensorFlow's converter writes them: LiteRT 2.3.0's GPU accelerator delegates them whole
and computes them wrongly (GPU005), and their rank-4 twins, which it computes right. All names
start with "wrongform_"."""

import numpy as np

from modelgen import builder, const, convert_fn, tf

F = np.float32

FORMS = {
    "pad3_mid": (lambda t: lambda a: t.pad(a, [[0, 0], [16, 16], [0, 0]]), [([16, 32, 1], F)]),
    "add_mixed_rank": (lambda t: lambda a: a + const([1, 85, 16], 1), [([85, 16], F)]),
    "mul_channel_rank3": (lambda t: lambda a: a * const([1, 1, 1024], 2), [([512, 1024], F)]),
    "add_scalar_arange": (lambda t: lambda a: a + np.arange(4, dtype=F), [([], F)]),
    "add_same_2d": (lambda t: lambda a: a + const([4096, 256], 3), [([4096, 256], F)]),
    "mul_scalar_table": (lambda t: lambda a: a * const([64, 16], 4), [([], F)]),
    # a runtime operand broadcast across the batch of a constant [2, ...]: wrong at any rank
    "add_batch_const": (lambda t: lambda a: a + const([2, 4, 8, 16], 5), [([8, 16], F)]),
    "mul_channel_batch_const": (lambda t: lambda a: a * const([2, 4, 8, 16], 6), [([16], F)]),
    "sub_from_batch_const": (lambda t: lambda a: const([2, 4, 8, 16], 7) - a, [([4, 8, 16], F)]),
    "pad4_mid": (lambda t: lambda a: t.pad(a, [[0, 0], [0, 0], [16, 16], [0, 0]]), [([1, 16, 32, 1], F)]),
    "add_same_4d": (lambda t: lambda a: a + const([1, 8, 85, 16], 3), [([1, 8, 85, 16], F)]),
}


def _register(name: str, fn, specs) -> None:
    builder(f"wrongform_{name}")(lambda: convert_fn(fn(tf()), specs))


for _name, (_fn, _specs) in FORMS.items():
    _register(_name, _fn, _specs)


@builder("wrongform_chain")
def _chain() -> bytes:
    """TANH, then the rank-3 PAD the accelerator computes wrongly, then a MUL: --localize must name the PAD."""
    t = tf()
    return convert_fn(lambda a: t.pad(t.tanh(a), [[0, 0], [2, 2], [0, 0]]) * 3.0, [([8, 16, 4], F)])


@builder("wrongform_partly")
def _partly() -> bytes:
    """The wrong rank-3 PAD, then an op the accelerator does not take (ADD of the result and a
    runtime rank-0 tensor): the model runs partly delegated."""
    t = tf()
    return convert_fn(lambda a, s: t.pad(a, [[0, 0], [2, 2], [0, 0]]) + s, [([8, 16, 4], F), ([], F)])
