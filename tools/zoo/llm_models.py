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
LABELS = {"none": "fp32", "dynamic_int8": "dynamic-range int8", "fp16": "fp16 weights",
          "weight_only_int8": "weight-only int8", "dynamic_int4_block32": "dynamic-range int4 (block 32)",
          "dynamic_int4_block128": "dynamic-range int4 (block 128)"}
# exports beside the grid above: other architectures, quantizations and convert-script flags
# (llm_export.VARIANTS), as (architecture, quantization, variant)
VARIANTS = (
    *((a, q, "") for a in ("amd_llama", "hammer", "smollm2") for q in ("none", "dynamic_int8", "fp16")),
    *((a, q, "") for a in ("tiny_llama", "gemma3", "qwen") for q in ("weight_only_int8", "dynamic_int4_block32")),
    *((a, q, "nohlfb") for a in ("tiny_llama", "gemma2", "gemma3", "phi3", "qwen3", "openelm", "falcon", "smollm2")
      for q in ("none", "fp16")),
    ("llama", "dynamic_int8", "nohlfb"), ("deepseek", "weight_only_int8", "nohlfb"),
    ("tiny_llama", "none", "kv128"), ("gemma3", "fp16", "kv128"), ("phi4", "dynamic_int8", "kv128+nohlfb"),
    ("smollm", "none", "oneprefill"), ("qwen3", "fp16", "oneprefill+nohlfb"),
    ("llama", "none", "gpuflags"), ("phi2", "fp16", "gpuflags+nohlfb"), ("gemma2", "none", "cpuflags"),
    ("gemma3", "dynamic_int8", "cpuflags+nohlfb"),
    ("tiny_llama", "fp16", "logits"), ("llama", "none", "batch2"),
    ("tiny_llama", "none", "litertlm"), ("gemma3", "dynamic_int8", "litertlm"), ("qwen3", "fp16", "litertlm+nohlfb"),
)


def _run(*args: str) -> str:
    """llm_export.py in the torch venv."""
    return torch_models.run_in_venv(SCRIPT, *args)


@functools.cache
def versions() -> str:
    """The exporting tools' versions (part of the cache key)."""
    return _run("versions")


def export(arch: str, quant: str, variant: str = "") -> bytes:
    """The small `arch` exported with the converter's quantization `quant` and the convert
    script's flags `variant` (llm_export.VARIANTS names joined with "+")."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.tflite"
        _run("export", arch, quant, str(out), variant)
        return out.read_bytes()
