"""gpucompat: predict, explain and fix how the TFLite / LiteRT GPU delegate treats a .tflite model."""

import os as _os

__version__ = "0.1.0"

# rules/, rewrites/, opencl/ and reports/ live at the top of the source tree and are installed as
# gpucompat.rules, ... (pyproject.toml maps them). When this package is imported straight from a
# checkout (`python -m gpucompat` in the repository root) let its subpackages be found there too.
_checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_checkout, "rules", "support", "registry.py")) and not _os.path.isdir(
        _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "rules")):
    __path__.append(_checkout)

# The Python API (gpucompat/api.py): each returns the record its command prints as JSON.
from gpucompat.api import check, fix, verify  # noqa: E402

__all__ = ["__version__", "check", "fix", "verify"]
