"""The zoo's on-device LLMs: small seeded decoder-only models of litert-torch's generative examples,
exported by tools/zoo/llm_export.py in the torch venv (tools/zoo/torch_models.py) with signatures
prefill_8, prefill_32 and decode over an external KV cache, so torch never enters the main
environment."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from tools.zoo import torch_models

SCRIPT = Path(__file__).with_name("llm_export.py")
# llm_export.ARCHITECTURES' keys (kept here: that module is the venv's, not imported here)
ARCHITECTURES = ("tiny_llama", "llama", "smollm", "qwen", "qwen3", "deepseek", "gemma", "gemma2", "gemma3",
                 "phi2", "phi3", "phi4", "openelm", "falcon")
# litert-torch's converter quantization modes, and the label each counts as in the totals
QUANT = ("none", "dynamic_int8", "fp16")
LABELS = {"none": "fp32", "dynamic_int8": "dynamic-range int8", "fp16": "fp16 weights"}


def _run(*args: str) -> str:
    """llm_export.py in the torch venv."""
    return torch_models.run_in_venv(SCRIPT, *args)


@functools.cache
def versions() -> str:
    """The exporting tools' versions (part of the cache key)."""
    return _run("versions")


def export(arch: str, quant: str) -> bytes:
    """The small `arch` exported with the converter's quantization `quant`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.tflite"
        _run("export", arch, quant, str(out))
        return out.read_bytes()
