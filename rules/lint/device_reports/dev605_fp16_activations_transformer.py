"""Transformer decoders with FLOAT16 activations were reported to emit garbage on Metal, WebGPU and Adreno
(reported).

## What it finds
A model with attention on the GPU (a SOFTMAX reading BATCH_MATMUL scores): a transformer.

## Why it matters on the GPU
LiteRT-LM users report decoders whose text turns to garbage (`<unk>` floods, corrupted digits) with the GPU's
default FLOAT16 activations on Apple Metal, on the WebGPU delegate and on Adreno through OpenCL, cured by
FLOAT32 activations alone. Reported, not measured here.

## Example
A Gemma or Qwen-family decoder exported with litert-torch, run with Backend.GPU().

## How to fix
Run with FLOAT32 activations (LiteRT-LM activation_data_type FLOAT32, or GpuOptions(enforce_f32=True)); measure
fp16 on your prompts with `gpucompat verify --precision fp16`.

## Fix safety
Not applicable: a report, not a rewrite.

## References
https://github.com/google-ai-edge/LiteRT-LM/issues/2992, https://github.com/google-ai-edge/LiteRT-LM/issues/2814
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.device_reports.attention import attention
from gpucompat.rules.lint.device_reports.families import finding, for_families, node


@rule("DEV605", name="fp16-activations-transformer", severity="warning", uses_analyses=True)
@for_families("apple", "webgpu", "adreno")
def fp16_transformer(result, analyses) -> list[Finding]:
    """DEV605 once for a model with attention on the GPU."""
    nodes = tuple(node(sm) for _, sm in attention(result, analyses, rank3=False))
    if not nodes:
        return []
    return [finding("DEV605", ("apple", "webgpu", "adreno"),
                    f"attention on the GPU ({len(nodes)} SOFTMAX op(s) after BATCH_MATMUL) with the accelerator's "
                    f"default FLOAT16 activations: transformer decoders were reported to emit garbage until run with "
                    f"FLOAT32 activations", "LiteRT-LM#2992, LiteRT-LM#2814", nodes)]
