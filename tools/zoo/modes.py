"""The zoo's conversion modes, each one way TensorFlow's converter is driven in real apps, done by
the test suite's own converter helper (tests/modelgen.py; tests/ is put on the import path here)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
import modelgen  # noqa: E402


def tests_module(name: str):
    """One of the test suite's helper modules (tests/real_models.py, ...), by name."""
    return importlib.import_module(name)


# mode -> (what it is, the quantization it counts as)
MODES = {
    "fp32": ("float32 weights and activations", "fp32"),
    "fp16": ("float16 weights read through DEQUANTIZE", "fp16 weights"),
    "dynamic": ("dynamic-range int8 weights", "dynamic-range int8"),
    "int8": ("full int8 (seeded representative dataset, float I/O)", "full int8"),
    "batch": ("float32 with a dynamic batch (signature -1, stored 1)", "fp32"),
}


def convert(fn, sample_shape: list[int | None], mode: str) -> bytes:
    """.tflite bytes of `fn` on one float input of `sample_shape` (batch 1, or None in "batch");
    a None in `sample_shape` is a dimension the signature leaves open."""
    batch = None if mode == "batch" else 1
    specs = [([batch, *sample_shape], modelgen.tf().float32)]
    return modelgen.convert_fn(fn, specs, fp16=mode == "fp16",
                               quantize={"dynamic": "dynamic", "int8": "int8"}.get(mode))
