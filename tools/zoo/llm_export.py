"""Runs inside the zoo's torch venv (never the main environment): build a small decoder-only LLM
of one of litert-torch's generative examples (its architecture's fake config, shrunk further, with
random seeded weights) and export it the way the example's convert script does: signatures
prefill_8, prefill_32 and decode, an external KV cache of 64 entries, odml.* composites; or a
variant of that export (VARIANTS, joined with "+": the convert scripts' other flags).
`python llm_export.py export ARCH QUANT OUT [VARIANT]` / `versions`."""

from __future__ import annotations

import sys
from pathlib import Path

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
    "amd_llama": ("amd_llama_135m.amd_llama_135m", "get_fake_model_config", "AmdLlama", False),
    "hammer": ("hammer.hammer", "get_fake_model_config", "Hammer", False),
    "smollm2": ("smollm.smollm", "get_fake_model_config_v2", "SmolLM2", False),
}
# litert-torch's converter.QuantizationName values
QUANTIZATIONS = ("none", "dynamic_int8", "fp16", "weight_only_int8", "dynamic_int4_block32",
                 "dynamic_int4_block128")
# the convert scripts' other flags: name -> what it changes
VARIANTS = {
    "nohlfb": "no odml.* composites (the model config's and every norm's enable_hlfb off)",
    "kv128": "KV cache of 128, prefill_16 and prefill_64",
    "oneprefill": "one prefill signature of 16 (named 'prefill')",
    "gpuflags": "mask as an input and the transposed KV layout (the GPU flags)",
    "cpuflags": "no mask input and the default KV layout",
    "logits": "prefill outputs logits too",
    "batch2": "a decode signature of batch 2",
    "litertlm": "bundled as a .litertlm file (LiteRT-LM's container: the model beside its metadata)",
}


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

    if "tensorflow" in sys.modules or importlib.util.find_spec("tensorflow") is not None:
        return
    from ai_edge_litert import schema_py_generated

    parent = None
    for name in ("tensorflow", "tensorflow.lite", "tensorflow.lite.python"):
        module = sys.modules[name] = types.ModuleType(name)
        if parent is not None:
            setattr(parent, name.rsplit(".", 1)[1], module)
        parent = module
    parent.schema_py_generated = sys.modules["tensorflow.lite.python.schema_py_generated"] = schema_py_generated


def _hlfb_off(config) -> None:
    """Turn off enable_hlfb in `config` and in every config object under it."""
    import dataclasses

    seen = set()
    stack = [config]
    while stack:
        obj = stack.pop()
        if isinstance(obj, (list, tuple)):
            stack.extend(obj)
            continue
        if id(obj) in seen or not dataclasses.is_dataclass(obj):
            continue
        seen.add(id(obj))
        if hasattr(obj, "enable_hlfb"):
            obj.enable_hlfb = False
        stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))


def _init_norms(model) -> None:
    """Give litert-torch's LayerNorm and GroupNorm their parameters (it allocates them with
    torch.empty and leaves them to a checkpoint: random memory, up to 1e35, different on every run,
    so Phi-2's and Falcon's outputs overflowed): weight 1 + N(0, 0.1), bias N(0, 0.1), seeded."""
    import torch

    generator = torch.Generator().manual_seed(1)
    for module in model.modules():
        if type(module).__name__ in ("LayerNorm", "GroupNorm"):
            for name, param in module.named_parameters(recurse=False):
                noise = 0.1 * torch.randn(param.shape, generator=generator)
                param.data = (1 + noise if name == "weight" else noise).to(param.dtype)


def build(arch: str, variant: set[str]):
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
    if "nohlfb" in variant:
        _hlfb_off(config)
    gpu_defaults = "gpuflags" in variant or (gpu_defaults and "cpuflags" not in variant)
    torch.manual_seed(0)
    model = getattr(module, class_name)(config, 0 if gpu_defaults else _kv_len(variant)).eval()
    _init_norms(model)
    exported = export_config.ExportConfig(mask_as_input=gpu_defaults, output_logits_on_prefill="logits" in variant,
                                          decode_batch_size=2 if "batch2" in variant else 1)
    if gpu_defaults:
        exported.kvcache_layout = kv_cache.KV_LAYOUT_TRANSPOSED
    return model, config, exported


def _kv_len(variant: set[str]) -> int:
    """The KV cache's length under `variant`."""
    return 128 if "kv128" in variant else KV_CACHE_MAX_LEN


def _prefill_lens(variant: set[str]) -> list[int] | int:
    """The prefill signatures' lengths under `variant` (one int: one signature named 'prefill')."""
    if "oneprefill" in variant:
        return 16
    return [16, 64] if "kv128" in variant else list(PREFILL_SEQ_LENS)


def _tokenizer(folder: str, vocab: int) -> str:
    """A word-level Hugging Face tokenizer.json of `vocab` made-up words (a bundle must carry a
    tokenizer; these models' weights are random, so any will do)."""
    import json

    path = Path(folder) / "tokenizer.json"
    words = {f"w{i}": i for i in range(vocab)}
    path.write_text(json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                                "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
                                "decoder": None, "model": {"type": "WordLevel", "vocab": words, "unk_token": "w0"}}))
    return str(path)


def export(arch: str, quantize: str, out: str, variant: str = "") -> None:
    """Export the small `arch` with litert-torch's converter (quantization `quantize`, the flags
    of `variant`: VARIANTS names joined with "+") to `out`."""
    import shutil
    import tempfile

    flags = set(filter(None, variant.split("+")))
    unknown = flags - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variant {sorted(unknown)}; known: {sorted(VARIANTS)}")
    model, config, exported = build(arch, flags)
    from litert_torch.generative.utilities import converter  # after build(): it imports the schema

    settings = dict(prefill_seq_len=_prefill_lens(flags), kv_cache_max_len=_kv_len(flags), quantize=quantize,
                    config=config, export_config=exported)
    with tempfile.TemporaryDirectory() as tmp:
        if "litertlm" in flags:
            converter.convert_to_litert(model, output_path=tmp, output_name_prefix=arch, output_format="litertlm",
                                        hf_tokenizer_model_path=_tokenizer(tmp, config.vocab_size), **settings)
            shutil.move(next(Path(tmp).glob("*.litertlm")), out)
            return
        path = converter.convert_to_tflite(model, output_path=tmp, output_name_prefix=arch, **settings)
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
