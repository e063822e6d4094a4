"""Models whose GPU blockers sit in known layers, converted by TensorFlow's converter as users
convert them: a Keras functional model (nested model called twice, a layer named like an
automatic name, fused activations, a blocker inside a named Lambda), and a tf.function with name
scopes."""

from __future__ import annotations

from modelgen import builder, convert_fn, rng, tf

# the Keras model's layers, by the names the tests expect to read back
KERAS_BLOCKER = "pick"  # a Lambda around tf.gather_nd: GATHER_ND, which no GPU delegate takes
KERAS_STEM = "conv_1"  # named as Keras would name a second layer: Keras 3 writes conv_1_1
KERAS_BLOCK = "block"  # a nested functional model called twice
KERAS_BLOCK_CONV = "inner_conv"


def _keras_model():
    t = tf()
    keras = t.keras
    layers = keras.layers
    keras.backend.clear_session()  # automatic layer names count from 0, whatever was built before
    keras.utils.set_random_seed(0)

    inner = keras.Input((8, 8, 8))
    y = layers.Conv2D(8, 3, padding="same", name=KERAS_BLOCK_CONV)(inner)
    y = layers.BatchNormalization()(y)
    block = keras.Model(inner, layers.ReLU()(y), name=KERAS_BLOCK)

    image = keras.Input((8, 8, 3), batch_size=1)
    x = layers.Conv2D(8, 3, padding="same", activation="relu", name=KERAS_STEM)(image)
    x = block(block(x))
    flat = layers.Reshape((64, 8))(x)
    picked = layers.Lambda(lambda v: t.gather_nd(v, [[0, 3], [0, 9]]), name=KERAS_BLOCKER)(flat)
    out = layers.Dense(4, name="head")(layers.Dense(8)(picked))
    return keras.Model(image, out, name="net")


@builder("attr_keras")
def attr_keras() -> bytes:
    """The Keras model through TFLiteConverter.from_keras_model."""
    t = tf()
    return t.lite.TFLiteConverter.from_keras_model(_keras_model()).convert()


TF_SCOPE = "decoder"


@builder("attr_tf_scopes")
def attr_tf_scopes() -> bytes:
    """A tf.function whose GATHER_ND sits in tf.name_scope("decoder"), its input's matmul in
    "encoder", and whose last op has no scope."""
    t = tf()
    w = rng(3).standard_normal((8, 8)).astype("float32")

    def fn(x):
        with t.name_scope("encoder"):
            h = t.matmul(x, w)
        with t.name_scope(TF_SCOPE):
            g = t.gather_nd(h, [[0], [2]])
        return g * 2.0

    return convert_fn(fn, [((4, 8), t.float32)])


@builder("attr_convnext_tiny")
def attr_convnext_tiny() -> bytes:
    """keras.applications.ConvNeXtTiny (seeded weights, 32x32 input): a real model of 671 ops
    whose names nest stage, block and layer."""
    t = tf()
    t.keras.utils.set_random_seed(0)
    model = t.keras.applications.ConvNeXtTiny(weights=None, input_shape=(32, 32, 3), classes=10)
    return t.lite.TFLiteConverter.from_keras_model(model).convert()


def _picking_model(pick, name: str) -> bytes:
    """A Keras model whose Lambda layer `pick` applies `pick` between two Dense layers."""
    t = tf()
    keras = t.keras
    keras.utils.set_random_seed(0)
    x = keras.Input((16, 8), batch_size=1)
    y = keras.layers.Lambda(pick, name=HINT_LAYER)(keras.layers.Dense(8, name="proj")(x))
    y = keras.layers.Dense(4, name="head")(keras.layers.Reshape((-1,))(y))
    return t.lite.TFLiteConverter.from_keras_model(keras.Model(x, y, name=name)).convert()


HINT_LAYER = "pick"


@builder("hint_keras_gather_nd_fixed.before")
def hint_keras_gather_nd_before() -> bytes:
    return _picking_model(lambda v: tf().gather_nd(v, [[[0, 3], [0, 9]]]), "before")


@builder("hint_keras_gather_nd_fixed.after")
def hint_keras_gather_nd_after() -> bytes:
    return _picking_model(lambda v: tf().concat([v[:, 3:4], v[:, 9:10]], axis=1), "after")


@builder("hint_keras_argmax_int64.before")
def hint_keras_argmax_before() -> bytes:
    t = tf()
    return _picking_model(lambda v: t.cast(t.argmax(v, -1), t.float32)[:, None, :], "before")


@builder("hint_keras_argmax_int64.after")
def hint_keras_argmax_after() -> bytes:
    t = tf()
    return _picking_model(lambda v: t.cast(t.argmax(v, -1, output_type=t.int32), t.float32)[:, None, :], "after")


def _output_blocker(debug: bool) -> bytes:
    """A Keras model whose GATHER_ND (in layer `pick`) writes the model's output, converted with or
    without the converter's debug metadata."""
    t = tf()
    keras = t.keras
    keras.utils.set_random_seed(0)
    x = keras.Input((16, 8), batch_size=1)
    y = keras.layers.Lambda(lambda v: t.gather_nd(v, [[[0, 3], [0, 9]]]), name=KERAS_BLOCKER)(
        keras.layers.Dense(8, name="proj")(x))
    converter = t.lite.TFLiteConverter.from_keras_model(keras.Model(x, y, name="net"))
    converter.serialize_debug_metadata = debug
    return converter.convert()


@builder("attr_keras_output_blocker")
def attr_keras_output_blocker() -> bytes:
    return _output_blocker(debug=False)


@builder("attr_keras_output_blocker_debug")
def attr_keras_output_blocker_debug() -> bytes:
    return _output_blocker(debug=True)
