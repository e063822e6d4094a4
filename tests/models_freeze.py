"""Models with dynamic shapes, as exporters write them, for freeze-shapes.

The Keras applications are converted with `TFLiteConverter.from_keras_model` and no fixed batch:
their inputs are [-1, H, W, 3] and Flatten / Reshape / squeeze-and-excite compute the batch at
run time (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE). `weights=None` then seeded weights (with the
fresh initialisation the signal fades over the layers and every input gives the same logits,
which would verify nothing), 32x32 inputs to keep conversion short, logits out.
"""

import numpy as np

from modelgen import builder, const, convert_fn, tf


def _convert_keras(model, fp16: bool = False) -> bytes:
    t = tf()
    conv = t.lite.TFLiteConverter.from_keras_model(model)
    if fp16:
        conv.optimizations = [t.lite.Optimize.DEFAULT]
        conv.target_spec.supported_types = [t.float16]
    return conv.convert()


def _seeded(model, seed: int):
    """Seeded weights that keep the signal's scale through the layers (He-normal kernels, batch
    norms near identity), so the outputs depend on the input."""
    gen = np.random.default_rng(seed)
    weights = [(type(layer).__name__ == "DepthwiseConv2D", w) for layer in model.layers for w in layer.weights]
    for depthwise, w in weights:
        name = w.path if hasattr(w, "path") else w.name
        v = w.numpy()
        if name.endswith("kernel"):
            fan_in = int(np.prod(v.shape[:2] if depthwise else v.shape[:-1]))
            w.assign(gen.normal(0, np.sqrt(2 / fan_in), v.shape).astype(v.dtype))
        elif name.endswith(("bias", "beta", "moving_mean")):
            w.assign(gen.normal(0, 0.05, v.shape).astype(v.dtype))
        elif name.endswith(("gamma", "moving_variance")):
            w.assign(gen.uniform(0.8, 1.2, v.shape).astype(v.dtype))
    return model


def _application(name: str, seed: int, **kw):
    t = tf()
    app = getattr(t.keras.applications, name)
    return _seeded(app(input_shape=(32, 32, 3), weights=None, classes=10, classifier_activation=None, **kw), seed)


@builder("freeze_mobilenet")
def freeze_mobilenet() -> bytes:
    """Keras MobileNet (alpha 0.25), dynamic batch: Reshape before the logits."""
    return _convert_keras(_application("MobileNet", 1, alpha=0.25))


@builder("freeze_mobilenet_v3_small")
def freeze_mobilenet_v3_small() -> bytes:
    """Keras MobileNetV3Small, dynamic batch: Flatten before the logits."""
    return _convert_keras(_application("MobileNetV3Small", 2))


@builder("freeze_efficientnet_b0_fp16")
def freeze_efficientnet_b0_fp16() -> bytes:
    """Keras EfficientNetB0 with fp16 weights (DEQUANTIZE), dynamic batch: 16 squeeze-and-excite
    Reshapes. Its Normalization layer's variance undoes the built-in Rescaling(1/255), so inputs
    of unit scale reach the first convolution at unit scale."""
    model = _application("EfficientNetB0", 3)
    norm = model.get_layer("normalization")
    variance = next(w for w in norm.weights if w.path.endswith("variance"))
    variance.assign(np.full(variance.shape, (1 / 255) ** 2, dtype="float32"))
    norm.finalize_state()  # the layer computes with tensors derived from its weights
    return _convert_keras(model, fp16=True)


@builder("freeze_flatten")
def freeze_flatten() -> bytes:
    """conv -> reshape to [batch, -1] with the batch from tf.shape -> matmul, dynamic batch."""
    t = tf()
    w, d = const([3, 3, 3, 4]), const([6 * 6 * 4, 5], seed=1)

    def f(x):
        y = t.nn.relu(t.nn.conv2d(x, w, 1, "SAME"))
        return t.matmul(t.reshape(y, [t.shape(y)[0], -1]), d)

    return convert_fn(f, [([None, 6, 6, 3], t.float32)])


@builder("freeze_dynamic_hw")
def freeze_dynamic_hw() -> bytes:
    """conv -> global mean, batch, height and width dynamic."""
    t = tf()
    w = const([3, 3, 3, 4], seed=2)
    return convert_fn(lambda x: t.reduce_mean(t.nn.conv2d(x, w, 1, "SAME"), axis=[1, 2]),
                      [([None, None, None, 3], t.float32)])


@builder("freeze_data_dependent")
def freeze_data_dependent() -> bytes:
    """A reshape whose new shape is computed from input values: its output shape is only known at
    run time, whatever the batch."""
    t = tf()

    def f(x, n):
        return t.reshape(x, t.stack([n[0], -1]))

    return convert_fn(f, [([None, 8], t.float32), ([1], t.int32)])


@builder("freeze_transformer_encoder")
def freeze_transformer_encoder() -> bytes:
    """A Keras transformer encoder block (4-head self-attention, LayerNormalization, GELU MLP) on
    [batch, 16, 32], dynamic batch: each Dense on a 3-D tensor becomes a Tensordot whose shapes
    come from SHAPE -> GATHER -> REDUCE_PROD -> PACK / CONCATENATION."""
    t = tf()
    layers = t.keras.layers
    x = layers.Input((16, 32))
    h = layers.LayerNormalization()(x + layers.MultiHeadAttention(4, 8)(x, x))
    f = layers.Dense(32)(layers.Dense(64, activation="gelu")(h))
    return _convert_keras(_seeded(t.keras.Model(x, layers.LayerNormalization()(h + f)), 4))


@builder("freeze_placeholder_audio")
def freeze_placeholder_audio() -> bytes:
    """An audio front-end on raw samples [batch, samples], both dynamic: the converter stores the
    input as the placeholder [1, 1] (signature [-1, -1]), where the framing convolution (a
    512-wide VALID kernel, hop 160) cannot even prepare; it runs at any length from 512 up."""
    t = tf()
    w, d = const([1, 512, 1, 16], scale=0.1), const([16, 8], seed=1)

    def f(x):
        frames = t.nn.relu(t.nn.conv2d(t.expand_dims(t.expand_dims(x, 1), 3), w, [1, 1, 160, 1], "VALID"))
        return t.matmul(t.reduce_mean(frames, axis=[1, 2]), d)

    return convert_fn(f, [([None, None], t.float32)])


def _framed(t, audio, hop: int):
    """Keras-style framing by the input's shape: [batch, samples] -> [batch, samples // hop, hop],
    the length and batch split out of tf.shape (SPLIT_V) and floor-divided (FLOOR_DIV)."""
    batch, length = t.split(t.shape(audio), [1, 1])
    frames = length // hop
    kept = t.slice(audio, [0, 0], t.concat([batch, frames * hop], 0))
    return t.reshape(kept, t.concat([batch, frames, [hop]], 0))


def _by_shape(t, x, tail):
    """tf.reshape(x, [*tf.shape(x)[:2], *tail]): a Keras Lambda reshaping by the tensor's shape."""
    return t.reshape(x, t.concat([t.shape(x)[:2], tail], 0))


@builder("freeze_audio_keras")
def freeze_audio_keras() -> bytes:
    """A Keras keyword classifier on raw audio, batch and length dynamic ([-1, -1], stored [1, 1]):
    frames by the input's shape, a learned filterbank (Dense), log, reshape by tf.shape to a
    [batch, frames, 16, 4] image, Conv2D and DepthwiseConv2D, reshape back by tf.shape, Dense,
    average over time, logits. Every reshape's shape is arithmetic on SHAPE."""
    t = tf()
    return _keyword_classifier(t, lambda a: _framed(t, a, 160), seed=5)


@builder("freeze_audio_padded_frames")
def freeze_audio_padded_frames() -> bytes:
    """Audio padded up to whole frames, the frame count worked out in float as apps write it:
    ceil(length / hop) through CAST, DIV, CEIL and CAST, at least one frame (MAXIMUM), a guard on
    an empty input (comparison and SELECT_V2), the padding (SUB, PACK) and the frames (RESHAPE)."""
    t = tf()
    w = const([160, 24], scale=0.1)

    def f(x):
        length = t.shape(x)[1]
        frames = t.cast(t.math.ceil(t.cast(length, t.float32) / 160.0), t.int32)
        frames = t.where(length > 0, t.maximum(frames, 1), 1)
        padded = t.pad(x, t.stack([t.zeros(2, t.int32), t.stack([0, frames * 160 - length])], axis=1))
        framed = t.reshape(padded, t.stack([t.shape(x)[0], frames, 160]))
        return t.reduce_mean(t.nn.relu(t.tensordot(framed, w, 1)), axis=1)

    return convert_fn(f, [([None, None], t.float32)])


@builder("freeze_audio_signal_frame")
def freeze_audio_signal_frame() -> bytes:
    """A Keras keyword classifier framing raw audio with tf.signal.frame (400-sample frames, hop
    160), batch and length dynamic: the converter writes the frame count as SHAPE -> SPLIT_V ->
    RESHAPE to a scalar (a zero-element shape constant) -> SUB / FLOOR_DIV / MAXIMUM -> RANGE, and
    reshapes by tf.shape after the filterbank and the convolutions."""
    t = tf()
    return _keyword_classifier(t, lambda a: t.signal.frame(a, 400, 160), seed=6)


def _keyword_classifier(t, framing, seed: int) -> bytes:
    """The Keras keyword classifier of the audio models, on frames made by `framing` from raw audio
    of dynamic batch and length."""
    layers = t.keras.layers
    x = layers.Input((None,), name="audio")
    spec = layers.Dense(64, activation="relu")(layers.Lambda(framing)(x))
    spec = layers.Lambda(lambda s: t.math.log(s + 1e-3))(spec)
    h = layers.Conv2D(16, 3, padding="same", activation="relu")(layers.Lambda(lambda s: _by_shape(t, s, [16, 4]))(spec))
    h = layers.DepthwiseConv2D(3, padding="same", activation="relu")(h)
    h = layers.Dense(32, activation="relu")(layers.Lambda(lambda s: _by_shape(t, s, [256]))(h))
    model = t.keras.Model(x, layers.Dense(10)(layers.GlobalAveragePooling1D()(h)))
    return _convert_keras(_seeded(model, seed))
