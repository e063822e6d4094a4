"""Runs inside the zoo's torch venv (never the main environment): build a small decoder-only LLM
of one of litert-torch's generative examples (its architecture's fake config, shrunk further, with
random seeded weights) and export it the way the example's convert script does: signatures
prefill_8, prefill_32 and decode, an external KV cache of 64 entries, odml.* composites.
`python llm_export.py export ARCH QUANT OUT` / `versions`."""

from __future__ import annotations

import sys

KV_CACHE_MAX_LEN = 64
PREFILL_SEQ_LENS = (8, 32)
EMBEDDING_DIM = 128
NUM_HEADS = 4

# ARCH: (example module, fake config function, model class, its convert script's default of
# mask_as_input and transpose_kv_cache)
ARCHITECTURES = {
    "tiny_llama": ("tiny_llama.tiny_llama", "get_fake_model_config", "TinyLlama", False),
    "llama": ("llama.llama", "get_fake_model_config", "Llama", False),
    "smollm": ("smollm.smollm", "get_fake_model_config", "SmolLM", False),
    "qwen": ("qwen.qwen", "get_fake_model_config", "Qwen", False),
    "qwen3": ("qwen.qwen3", "get_fake_model_config", "Qwen3", False),
    "deepseek": ("deepseek.deepseek", "get_fake_model_config", "DeepSeekDistillQwen", True),
    "gemma": ("gemma.gemma1", "get_fake_model_config", "Gemma1", False),
    "gemma2": ("gemma.gemma2", "get_fake_model_config", "Gemma2", True),
    "gemma3": ("gemma3.decoder", "get_fake_decoder_config_1b", "Decoder", True),
    "phi2": ("phi.phi2", "get_fake_model_config", "Phi2", False),
    "phi3": ("phi.phi3", "get_fake_model_config", "Phi3_5Mini", False),
    "phi4": ("phi.phi4", "get_fake_model_config", "Phi4Mini", False),
    "openelm": ("openelm.openelm", "get_fake_model_config", "OpenELM", False),
    "falcon": ("falcon.falcon", "get_fake_model_config", "Falcon", False),
}
QUANTIZATIONS = ("none", "dynamic_int8", "fp16")  # litert-torch's converter.QuantizationName values


def _shrink(config) -> None:
    """Narrow a fake config in place: embedding dim 128 and at most 4 heads, keeping each
    architecture's head_dim (its RoPE tables depend on it) and its kind of attention (multi-head,
    multi-query or grouped-query)."""
    if config.embedding_scale is not None:
        config.embedding_scale = EMBEDDING_DIM**0.5
    config.embedding_dim = EMBEDDING_DIM
    for block in {id(b): b for b in map(config.block_config, range(config.num_layers))}.values():
        attn = block.attn_config
        if attn.num_heads > NUM_HEADS:
            groups = attn.num_query_groups
            attn.num_query_groups = NUM_HEADS if groups == attn.num_heads else 1 if groups == 1 else 2
            attn.num_heads = NUM_HEADS
        if attn.sliding_window_size:
            attn.sliding_window_size = min(attn.sliding_window_size, KV_CACHE_MAX_LEN // 2)


def _schema_without_tensorflow() -> None:
    """litert-torch's LoRA layer (imported by every generative model) imports TFLite's flatbuffer
    schema from TensorFlow, which the venv lacks: serve ai-edge-litert's copy of the same schema
    under that name (the LoRA code that uses it is never run here)."""
    import importlib.util
    import types

    if importlib.util.find_spec("tensorflow") is not None:
        return
    from ai_edge_litert import schema_py_generated

    parent = None
    for name in ("tensorflow", "tensorflow.lite", "tensorflow.lite.python"):
        module = sys.modules[name] = types.ModuleType(name)
        if parent is not None:
            setattr(parent, name.rsplit(".", 1)[1], module)
        parent = module
    parent.schema_py_generated = sys.modules["tensorflow.lite.python.schema_py_generated"] = schema_py_generated


def build(arch: str):
    """The small model of `arch` (seeded random weights, eval mode) and its export config."""
    import importlib

    import torch
    from litert_torch.generative.layers import kv_cache
    from litert_torch.generative.utilities import export_config

    _schema_without_tensorflow()
    module_name, config_fn, class_name, gpu_defaults = ARCHITECTURES[arch]
    module = importlib.import_module(f"litert_torch.generative.examples.{module_name}")
    config = getattr(module, config_fn)()
    _shrink(config)
    torch.manual_seed(0)
    model = getattr(module, class_name)(config, 0 if gpu_defaults else KV_CACHE_MAX_LEN).eval()
    exported = export_config.ExportConfig(mask_as_input=gpu_defaults)
    if gpu_defaults:
        exported.kvcache_layout = kv_cache.KV_LAYOUT_TRANSPOSED
    return model, config, exported


def export(arch: str, quantize: str, out: str) -> None:
    """Export the small `arch` with litert-torch's converter (quantization `quantize`) to `out`."""
    import shutil
    import tempfile

    model, config, exported = build(arch)
    from litert_torch.generative.utilities import converter  # after build(): it imports the schema

    with tempfile.TemporaryDirectory() as tmp:
        path = converter.convert_to_tflite(model, output_path=tmp, output_name_prefix=arch,
                                           prefill_seq_len=list(PREFILL_SEQ_LENS),
                                           kv_cache_max_len=KV_CACHE_MAX_LEN, quantize=quantize,
                                           config=config, export_config=exported)
        shutil.move(path, out)


def versions() -> str:
    """The tools that decide the exported bytes."""
    from importlib.metadata import version

    return f"torch{version('torch')}-litert_torch{version('litert-torch')}-aeq{version('ai-edge-quantizer')}"


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "versions":
        print(versions())
    else:
        {"export": export}[command](*args)
