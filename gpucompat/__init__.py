"""gpucompat: predict, explain and fix how the TFLite / LiteRT GPU delegate treats a .tflite model."""

__version__ = "0.1.0"

# The Python API (gpucompat/api.py): each returns the record its command prints as JSON.
from gpucompat.api import check, fix, verify

__all__ = ["__version__", "check", "fix", "verify"]
