"""Graph shapes that real apps ship, built the way the converter writes them: one builder per
failure class of the real-app set (issue 22), each beside the nearest form that works. The
fidelity suite compiles them all on the real accelerator; tests/test_realapp_classes.py checks
what `check`, `fix` and `verify` say about them."""

import numpy as np

from modelgen import builder, const, convert_fn, tf

_W = const([8, 8], seed=7)
_MASK = np.tril(np.ones((32, 32), bool))  # a causal mask, as litert-torch bakes it
_SCORES = ([1, 4, 32, 32], np.float32)


def _scaled_by_scalar(y, scalar):
    return tf().nn.relu(y * scalar + 1.0)


@builder("ra_zero_element_shape")
def zero_element_shape() -> bytes:
    """FULLY_CONNECTED -> SUM -> RESHAPE to a scalar (its shape operand is INT32 [0], a buffer of
    0 bytes: a constant all the same) -> MUL -> ADD: the RESHAPE is static and taken; the MUL of
    a runtime scalar is refused."""
    t = tf()
    return convert_fn(lambda x: _scaled_by_scalar(t.matmul(x, _W), t.reshape(t.reduce_sum(t.matmul(x, _W), 1), [])),
                      [([1, 8], np.float32)])


@builder("ra_zero_element_shape_dynamic_batch")
def zero_element_shape_dynamic_batch() -> bytes:
    """The same with a dynamic batch ([-1, 8]): the scalar is read from row 0 (STRIDED_SLICE),
    nothing is dynamic at prepare, and freeze-shapes can freeze it."""
    t = tf()

    def fn(x):
        y = t.matmul(x, _W)
        return _scaled_by_scalar(y, t.reshape(t.reduce_sum(y[:1, :1], 0), []))

    return convert_fn(fn, [([None, 8], np.float32)])


@builder("ra_slice_of_dynamic_batch")
def slice_of_dynamic_batch() -> bytes:
    """SLICE of a [-1, 8] tensor: its kernel makes the output dynamic (the input has an
    unspecified dimension), which gates the model."""
    t = tf()
    return convert_fn(lambda x: t.nn.relu(t.matmul(x, _W)[0:1, 0:4] + 1.0), [([None, 8], np.float32)])


def _frontend(x, stride: int = 16):
    """Samples [b, n] -> EXPAND_DIMS twice -> a VALID CONV_2D 64 samples wide -> MEAN: the conv
    front-end of an audio classifier."""
    t = tf()
    y = t.expand_dims(t.expand_dims(x, 1), -1)
    y = t.nn.relu(t.nn.conv2d(y, const([1, 64, 1, 8], seed=8), [1, 1, stride, 1], "VALID"))
    return t.reduce_mean(y, axis=[1, 2])


@builder("ra_audio_placeholder_shape")
def audio_placeholder_shape() -> bytes:
    """Signature [-1, -1], stored [1, 1]: the conv window is wider than its input and the model
    cannot be prepared at its stored shape."""
    return convert_fn(_frontend, [([None, None], np.float32)])


@builder("ra_audio_placeholder_zero_width")
def audio_placeholder_zero_width() -> bytes:
    """The same at stride 64: at [1, 1] the conv output is 0 wide, which prepare accepts; the
    accelerator then crashes compiling it."""
    return convert_fn(lambda x: _frontend(x, stride=64), [([None, None], np.float32)])


@builder("ra_audio_fixed_shape")
def audio_fixed_shape() -> bytes:
    """The same front-end exported at [1, 1600]: prepared and run."""
    return convert_fn(_frontend, [([1, 1600], np.float32)])


def _masked_softmax(mask):
    t = tf()
    return lambda x: t.nn.softmax(t.where(mask, x + 1.0, -1e9))


@builder("ra_causal_mask_2d")
def causal_mask_2d() -> bytes:
    """masked_fill with a constant BOOL [32, 32] mask on [1, 4, 32, 32] scores (SELECT_V2): taken
    at partitioning, then the kernel cannot be built and the whole compile fails."""
    return convert_fn(_masked_softmax(_MASK), [_SCORES])


@builder("ra_causal_mask_1d")
def causal_mask_1d() -> bytes:
    """A rank-1 BOOL [32] condition on [1, 4, 32, 32]: the same failure."""
    return convert_fn(_masked_softmax(_MASK[16]), [_SCORES])


@builder("ra_causal_mask_3d")
def causal_mask_3d() -> bytes:
    """The mask as [1, 32, 32] (batch 1 on the GPU too): compiles."""
    return convert_fn(_masked_softmax(_MASK[None]), [_SCORES])


@builder("ra_causal_mask_batch_2")
def causal_mask_batch_2() -> bytes:
    """The [32, 32] mask on [2, 4, 32, 32] scores: compiles."""
    return convert_fn(_masked_softmax(_MASK), [([2, 4, 32, 32], np.float32)])
