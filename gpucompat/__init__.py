"""gpucompat: predict, explain and fix how the TFLite / LiteRT GPU delegate treats a .tflite model."""

__version__ = "0.1.0"
