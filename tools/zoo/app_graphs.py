"""Graph shapes real apps have, built with TensorFlow and converted in the zoo's modes: audio
front-ends (STFT through RFFT2D, a conv-based mel spectrogram), IF and WHILE subgraphs, a constant
with zero elements, shape arithmetic on a dimension the signature leaves open, a placeholder stored
shape, MFCCs, a segmentation head with bilinear upsampling, an embedding text classifier, a pixel-
shuffle upscaler, a style-transfer step, a face-embedding head, box decoding with top-k, a gated
audio denoiser, a ViT's class token and positional embeddings, causal attention masked
through SELECT_V2, and the
Keras models apps ship (LSTM, GRU, BiLSTM, transformer encoder and causal decoder blocks, a DS-CNN
keyword spotter, a dilated temporal conv net, a U-Net)."""

from __future__ import annotations

import numpy as np

from tools.zoo import modes

SAMPLES = 4000  # a quarter second of 16 kHz audio


def _tf():
    from tools.zoo.modes import modelgen

    return modelgen.tf()


def _w(shape, seed: int) -> np.ndarray:
    """Seeded weights."""
    return (np.random.default_rng(seed).standard_normal(shape) * 0.1).astype(np.float32)


def _classifier(tf, features, seed: int):
    """A small conv classifier over [1, H, W, C] features, as keyword spotters end."""
    x = tf.nn.relu(tf.nn.conv2d(features, _w([3, 3, features.shape[-1], 16], seed), 1, "SAME"))
    x = tf.reduce_mean(x, axis=[1, 2])
    return tf.nn.softmax(tf.matmul(x, _w([16, 8], seed + 1)))


def stft_classifier(wave):
    """Waveform -> |STFT| (RFFT2D) -> mel matrix -> log -> classifier."""
    tf = _tf()
    spec = tf.abs(tf.signal.stft(wave, frame_length=256, frame_step=128, fft_length=256))
    mel = tf.math.log(tf.matmul(spec, np.abs(_w([129, 32], 1))) + 1e-3)
    return _classifier(tf, mel[..., None], 2)


def conv_mel_classifier(wave):
    """Waveform -> strided conv filterbank (a learned STFT) -> power -> 1x1 mel conv -> log -> classifier."""
    tf = _tf()
    x = tf.reshape(wave, [1, 1, SAMPLES, 1])
    bank = tf.nn.conv2d(x, _w([1, 400, 1, 64], 3), [1, 1, 160, 1], "VALID")
    mel = tf.nn.conv2d(tf.square(bank), np.abs(_w([1, 1, 64, 32], 4)), 1, "VALID")
    return _classifier(tf, tf.math.log(mel + 1e-3), 5)


def if_classifier(features):
    """A keyword classifier whose head is chosen at run time (an IF with two subgraphs)."""
    tf = _tf()
    x = tf.nn.relu(tf.nn.conv2d(features, _w([3, 3, 1, 8], 6), 1, "SAME"))
    pooled = tf.reduce_mean(x, axis=[1, 2])
    return tf.cond(tf.reduce_mean(pooled) > 0.0, lambda: tf.matmul(pooled, _w([8, 4], 7)),
                   lambda: tf.matmul(tf.tanh(pooled), _w([8, 4], 8)))


def while_smoother(frames):
    """A recurrence over 8 frames in a WHILE loop (state += tanh(frame @ W))."""
    tf = _tf()
    w = _w([16, 16], 9)

    def body(i, state):
        return i + 1, tf.tanh(state @ w + frames[:, i, :])

    _, state = tf.while_loop(lambda i, _: i < 8, body, (tf.constant(0), tf.zeros([1, 16])))
    return state


def zero_element_shape(features):
    """A one-element gate taken by RESHAPE to shape [] (the converter stores that shape as an INT32 [0]
    tensor with an empty buffer) scaling the feature map."""
    tf = _tf()
    x = tf.nn.conv2d(features, _w([3, 3, 3, 8], 10), 1, "SAME")
    gate = tf.reshape(tf.sigmoid(tf.nn.relu(x[:, :1, :1, :1])), [])
    return tf.nn.relu(x * gate)


def shape_arithmetic(frames):
    """Frames [1, T, 40] with T open: SHAPE -> split -> floor-divide -> RESHAPE pairs frames, then a
    slice of the first half, as streaming audio models do."""
    tf = _tf()
    shape = tf.shape(frames)
    batch, time_, feat = tf.split(shape, [1, 1, 1])
    paired = tf.reshape(frames, tf.concat([batch, time_ // 2, feat * 2], 0))
    half = paired[:, : tf.shape(paired)[1] // 2]
    return tf.matmul(half, _w([80, 16], 11))


def placeholder_wave(wave):
    """Waveform [1, T] with T open (stored as 1): a 512-wide VALID conv needs T >= 512 to prepare."""
    tf = _tf()
    x = tf.reshape(wave, [1, 1, -1, 1])
    x = tf.nn.relu(tf.nn.conv2d(x, _w([1, 512, 1, 16], 12), [1, 1, 256, 1], "VALID"))
    return tf.reduce_mean(x, axis=[1, 2])


def _sequence_model(shape: list[int], body):
    """A Keras model over one [1, *shape] input whose layers `body` applies (seeded)."""
    import keras

    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape, batch_size=None)
    return keras.Model(inputs, body(keras, inputs))


def mfcc_classifier(wave):
    """Waveform -> log-mel -> 13 MFCCs (a DCT-II as a matrix product) -> classifier, as speech
    front-ends compute them."""
    tf = _tf()
    spec = tf.abs(tf.signal.stft(wave, frame_length=256, frame_step=128, fft_length=256))
    log_mel = tf.math.log(tf.matmul(spec, np.abs(_w([129, 40], 17))) + 1e-3)
    n, k = np.meshgrid(np.arange(40), np.arange(13), indexing="ij")
    dct = np.cos(np.pi / 40 * (n + 0.5) * k).astype(np.float32)
    return _classifier(tf, tf.matmul(log_mel, dct)[..., None], 18)


def resize_head(features):
    """A segmentation head: 1x1 conv to classes, bilinear upsampling x4, per-pixel argmax."""
    tf = _tf()
    logits = tf.nn.conv2d(tf.nn.relu(features), _w([1, 1, 16, 4], 19), 1, "VALID")
    return tf.argmax(tf.image.resize(logits, [64, 64], method="bilinear"), axis=-1)


def text_classifier(ids):
    """Token ids (given as floats, cast) -> embedding lookup (GATHER) -> mean pool -> dense."""
    tf = _tf()
    table = _w([100, 32], 20)
    tokens = tf.clip_by_value(tf.cast(tf.abs(ids) * 10.0, tf.int32), 0, 99)
    pooled = tf.reduce_mean(tf.gather(table, tokens), axis=1)
    return tf.nn.softmax(tf.matmul(pooled, _w([32, 4], 21)))


def super_resolution(image):
    """An ESPCN-style x2 upscaler: convs, then DEPTH_TO_SPACE (pixel shuffle)."""
    tf = _tf()
    x = tf.nn.relu(tf.nn.conv2d(image, _w([5, 5, 3, 32], 22), 1, "SAME"))
    x = tf.nn.conv2d(x, _w([3, 3, 32, 12], 23), 1, "SAME")
    return tf.clip_by_value(tf.nn.depth_to_space(x, 2), 0.0, 1.0)


def style_transfer(image):
    """A style-transfer decoder step: instance normalization, nearest-neighbour upsampling, conv, tanh."""
    tf = _tf()
    x = tf.nn.conv2d(image, _w([3, 3, 3, 16], 24), 2, "SAME")
    mean, var = tf.nn.moments(x, axes=[1, 2], keepdims=True)
    x = tf.nn.relu((x - mean) * tf.math.rsqrt(var + 1e-5))
    x = tf.image.resize(x, [32, 32], method="nearest")
    return tf.tanh(tf.nn.conv2d(x, _w([3, 3, 16, 3], 25), 1, "SAME"))


def face_embedding(image):
    """A face-embedding head: conv, global pooling, dense, L2 normalization."""
    tf = _tf()
    x = tf.nn.relu(tf.nn.conv2d(image, _w([3, 3, 3, 32], 26), 2, "SAME"))
    return tf.math.l2_normalize(tf.matmul(tf.reduce_mean(x, axis=[1, 2]), _w([32, 64], 27)), axis=-1)


def box_decoder(features):
    """A detector's head and box decoding: class scores, exp-decoded sizes, and the top 10 scores."""
    tf = _tf()
    x = tf.reshape(tf.nn.conv2d(features, _w([1, 1, 16, 8], 28), 1, "VALID"), [1, -1, 8])
    centers, sizes, scores = x[..., :2], tf.exp(x[..., 2:4] * 0.1), tf.sigmoid(x[..., 4:])
    boxes = tf.concat([centers - sizes / 2, centers + sizes / 2], axis=-1)
    best, _ = tf.math.top_k(tf.reduce_max(scores, axis=-1), k=10)
    return boxes, best


def gated_denoiser(wave):
    """An audio denoiser: gated 1-D convs (tanh x sigmoid) down, a transposed conv back up."""
    tf = _tf()
    x = tf.reshape(wave, [1, SAMPLES, 1])
    h = tf.nn.conv1d(x, _w([16, 1, 32], 29), 4, "SAME")
    g = tf.tanh(h[..., :16]) * tf.sigmoid(h[..., 16:])
    return tf.nn.conv1d_transpose(g, _w([16, 1, 16], 30), [1, SAMPLES, 1], 4, "SAME")


def _attention(tf, x, seed: int, mask=None):
    """One single-head self-attention step over [B, T, D] tokens with a residual; `mask` ([1, T, T]
    bool, True where a token may look) is applied as apps write it, through tf.where (SELECT_V2)
    with a large negative fill."""
    d = x.shape[-1]
    q, k, v = (tf.matmul(x, _w([d, d], seed + i)) for i in range(3))
    scores = tf.matmul(q, k, transpose_b=True) / float(np.sqrt(d))
    if mask is not None:
        scores = tf.where(mask, scores, -1e4)
    return x + tf.matmul(tf.nn.softmax(scores), v)


def vit_tokens(image):
    """A ViT-style classifier: 8x8 patches embedded by a strided conv, a learned class token
    concatenated before them, learned positional embeddings added, one attention step, and the
    class token's features classified."""
    tf = _tf()
    patches = tf.reshape(tf.nn.conv2d(image, _w([8, 8, 3, 64], 40), 8, "VALID"), [-1, 16, 64])
    cls = tf.tile(_w([1, 1, 64], 41), [tf.shape(patches)[0], 1, 1])
    x = tf.concat([cls, patches], axis=1) + _w([1, 17, 64], 42)
    x = _attention(tf, x, 43)
    return tf.nn.softmax(tf.matmul(x[:, 0, :], _w([64, 10], 46)))


def masked_attention(frames):
    """An audio transformer step: frames projected, sinusoidal positional encodings added, causal
    self-attention whose mask goes through SELECT_V2, mean-pooled into a classifier."""
    tf = _tf()
    steps, width = 32, 64
    x = tf.matmul(frames, _w([40, width], 47))
    pos, i = np.meshgrid(np.arange(steps), np.arange(width // 2), indexing="ij")
    angles = pos / 10000.0 ** (2 * i / width)
    x = x + np.concatenate([np.sin(angles), np.cos(angles)], axis=-1).astype(np.float32)[None]
    x = _attention(tf, x, 48, mask=np.tril(np.ones([1, steps, steps], bool)))
    return tf.nn.softmax(tf.matmul(tf.reduce_mean(x, axis=1), _w([width, 8], 51)))


def lstm():
    """A Keras LSTM over 16 frames of 20 features (UNIDIRECTIONAL_SEQUENCE_LSTM)."""
    return _sequence_model([16, 20], lambda k, x: k.layers.Dense(4)(k.layers.LSTM(32)(x)))


def gru():
    """A Keras GRU over 16 frames of 20 features."""
    return _sequence_model([16, 20], lambda k, x: k.layers.Dense(4)(k.layers.GRU(32)(x)))


def ds_cnn():
    """A depthwise-separable CNN keyword spotter over 49x10 MFCC frames (the DS-CNN shape)."""
    def body(k, x):
        x = k.layers.Conv2D(32, (10, 4), strides=2, padding="same", activation="relu")(x)
        for _ in range(3):
            x = k.layers.DepthwiseConv2D(3, padding="same", activation="relu")(x)
            x = k.layers.Conv2D(32, 1, activation="relu")(k.layers.BatchNormalization()(x))
        return k.layers.Dense(12)(k.layers.GlobalAveragePooling2D()(x))

    return _sequence_model([49, 10, 1], body)


def tcn():
    """A temporal conv net: Conv1D with dilations 1, 2, 4 and residuals (SPACE_TO_BATCH in TFLite)."""
    def body(k, x):
        x = k.layers.Conv1D(32, 1)(x)
        for rate in (1, 2, 4):
            x = x + k.layers.Conv1D(32, 3, dilation_rate=rate, padding="causal", activation="relu")(x)
        return k.layers.Dense(4)(k.layers.GlobalAveragePooling1D()(x))

    return _sequence_model([64, 20], body)


def unet():
    """A two-level U-Net: strided convs down, Conv2DTranspose up, skip concatenations."""
    def body(k, x):
        d1 = k.layers.Conv2D(16, 3, padding="same", activation="relu")(x)
        d2 = k.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(d1)
        b = k.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(d2)
        u2 = k.layers.Concatenate()([k.layers.Conv2DTranspose(32, 2, strides=2)(b), d2])
        u1 = k.layers.Concatenate()([k.layers.Conv2DTranspose(16, 2, strides=2)(u2), d1])
        return k.layers.Conv2D(2, 1, activation="softmax")(u1)

    return _sequence_model([64, 64, 3], body)


def bilstm():
    """A bidirectional LSTM tagger over 16 frames of 20 features."""
    return _sequence_model([16, 20], lambda k, x: k.layers.Dense(4)(
        k.layers.Bidirectional(k.layers.LSTM(16, return_sequences=True))(x)))


def _blocks(keras, x, causal: bool):
    """Two pre-norm transformer blocks: self-attention (4 heads), then an MLP."""
    for _ in range(2):
        h = keras.layers.LayerNormalization()(x)
        x = x + keras.layers.MultiHeadAttention(num_heads=4, key_dim=16)(h, h, use_causal_mask=causal)
        h = keras.layers.LayerNormalization()(x)
        x = x + keras.layers.Dense(64)(keras.layers.Dense(128, activation="gelu")(h))
    return x


def encoder():
    """Two transformer encoder blocks over 32 tokens of width 64."""
    return _sequence_model([32, 64], lambda k, x: _blocks(k, x, False))


def decoder():
    """Two causal transformer decoder blocks over 32 tokens of width 64 (a masked softmax)."""
    return _sequence_model([32, 64], lambda k, x: _blocks(k, x, True))


# name -> (function, sample shape without batch; None is left open by the signature)
GRAPHS = {
    "stft_classifier": (stft_classifier, [SAMPLES]),
    "conv_mel_classifier": (conv_mel_classifier, [SAMPLES]),
    "if_classifier": (if_classifier, [20, 20, 1]),
    "while_smoother": (while_smoother, [8, 16]),
    "zero_element_shape": (zero_element_shape, [16, 16, 3]),
    "shape_arithmetic": (shape_arithmetic, [None, 40]),
    "placeholder_wave": (placeholder_wave, [None]),
    "mfcc_classifier": (mfcc_classifier, [SAMPLES]),
    "resize_head": (resize_head, [16, 16, 16]),
    "text_classifier": (text_classifier, [24]),
    "super_resolution": (super_resolution, [32, 32, 3]),
    "style_transfer": (style_transfer, [32, 32, 3]),
    "face_embedding": (face_embedding, [48, 48, 3]),
    "box_decoder": (box_decoder, [8, 8, 16]),
    "gated_denoiser": (gated_denoiser, [SAMPLES]),
    "vit_tokens": (vit_tokens, [32, 32, 3]),
    "masked_attention": (masked_attention, [32, 40]),
}
# name -> (a function making the Keras model, sample shape without batch)
KERAS_GRAPHS = {
    "lstm": (lstm, [16, 20]),
    "gru": (gru, [16, 20]),
    "encoder": (encoder, [32, 64]),
    "decoder": (decoder, [32, 64]),
    "ds_cnn": (ds_cnn, [49, 10, 1]),
    "tcn": (tcn, [64, 20]),
    "unet": (unet, [64, 64, 3]),
    "bilstm": (bilstm, [16, 20]),
}


def build(graph: str, mode: str) -> bytes:
    """The graph `graph` converted in `mode`."""
    if graph in KERAS_GRAPHS:
        make, shape = KERAS_GRAPHS[graph]
        model = make()
        return modes.convert(lambda x: model(x, training=False), shape, mode)
    fn, shape = GRAPHS[graph]
    return modes.convert(fn, shape, mode)
