"""Every keras.applications architecture (weights=None, 10 classes, a small input) converted by
TensorFlow's converter in each of the zoo's modes."""

from __future__ import annotations

from tools.zoo import modes

# Smallest first, so a run that is cut short still covers the most architectures. Xception and the
# Inception family need at least 71 / 75 pixels; 96 suits every architecture.
ARCHITECTURES = (
    "MobileNetV3Small", "MobileNet", "MobileNetV2", "MobileNetV3Large", "EfficientNetB0", "EfficientNetV2B0",
    "NASNetMobile", "DenseNet121", "ResNet50", "ResNet50V2", "InceptionV3", "Xception", "EfficientNetB1",
    "EfficientNetV2B1", "EfficientNetB2", "EfficientNetV2B2", "EfficientNetB3", "EfficientNetV2B3",
    "ConvNeXtTiny", "DenseNet169", "DenseNet201", "VGG16", "VGG19", "ResNet101", "ResNet101V2",
    "EfficientNetB4", "InceptionResNetV2", "ConvNeXtSmall", "EfficientNetV2S", "ResNet152", "ResNet152V2",
    "EfficientNetB5", "EfficientNetB6", "EfficientNetV2M", "ConvNeXtBase", "EfficientNetB7", "NASNetLarge",
    "EfficientNetV2L", "ConvNeXtLarge", "ConvNeXtXLarge",
)
SIDE = 96
CLASSES = 10


def versions() -> str:
    """The tools that decide these models' bytes."""
    import keras
    import tensorflow as tf

    return f"tf{tf.__version__}-keras{keras.__version__}"


def build(architecture: str, mode: str) -> bytes:
    """`architecture` with seeded random weights, converted in `mode` (see modes.MODES)."""
    import keras

    keras.utils.set_random_seed(0)
    keras.backend.clear_session()
    constructor = getattr(keras.applications, architecture)
    model = constructor(weights=None, input_shape=(SIDE, SIDE, 3), classes=CLASSES)
    try:
        return modes.convert(lambda x: model(x, training=False), [SIDE, SIDE, 3], mode)
    finally:
        keras.backend.clear_session()
