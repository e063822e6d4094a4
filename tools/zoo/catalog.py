"""Every zoo model: its name, the architecture and mode it stands for, and how to build it, in the
order the zoo builds them (most value first)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tools.zoo import cache


@dataclass(frozen=True)
class Entry:
    """One zoo model."""

    name: str
    family: str  # keras, torch, app, mediapipe, llm
    architecture: str
    mode: str  # tools/zoo/modes.py MODES key, or an ai-edge-quantizer recipe
    quantization: str  # the quantization mode it counts as in the totals
    build: Callable[[], bytes]
    versions: Callable[[], str]  # the tools whose versions decide the bytes (part of the cache key)
    suffix: str = ".tflite"  # ".litertlm": a LiteRT-LM bundle

    def path(self) -> Path:
        """Where the built model is cached."""
        return cache.model_path(self.versions(), self.name, self.suffix)

    def built(self) -> Path:
        """The cached model, built now if it is not there yet."""
        path = self.path()
        if not path.is_file():
            cache.write_atomically(path, self.build())
        return path


def _keras() -> tuple[list[Entry], list[Entry]]:
    from tools.zoo import keras_apps, modes

    def entry(arch: str, mode: str) -> Entry:
        return Entry(f"keras_{arch.lower()}_{mode}", "keras", arch, mode, modes.MODES[mode][1],
                     lambda: keras_apps.build(arch, mode), keras_apps.versions)

    archs, small = keras_apps.ARCHITECTURES, keras_apps.ARCHITECTURES[:6]
    # the quantization modes on the smallest architectures; then (after the first torch exports)
    # every other architecture at fp32 (the big ones take minutes each), the dynamic batch, and the
    # other modes on the bigger ones
    return ([entry(a, m) for a in small for m in ("fp32", "dynamic", "fp16", "int8")],
            [entry(a, "fp32") for a in archs[6:]] + [entry(a, "batch") for a in archs[:12]]
            + [entry(a, m) for a in archs[6:] for m in ("dynamic", "fp16", "int8")]
            + [entry(a, "batch") for a in archs[12:]])


def _torch() -> tuple[list[Entry], list[Entry]]:
    from tools.zoo import torch_export, torch_models

    exported = [Entry(f"torch_{n}_fp32", "torch", n, "fp32", "fp32", lambda n=n: torch_models.export(n),
                      torch_models.versions) for n in torch_export.MODELS]
    recipes = [Entry(f"torch_{n}_{mode}", "torch", n, mode, f"ai-edge-quantizer {recipe}",
                     lambda n=n, mode=mode: torch_models.quantized(n, mode), torch_models.versions)
               for n in torch_models.QUANTIZED for mode, recipe in torch_models.RECIPES.items()]
    return exported[:10], recipes + exported[10:]


def _app_graphs() -> list[Entry]:
    from tools.zoo import app_graphs, keras_apps, modes

    def entry(graph: str, mode: str) -> Entry:
        return Entry(f"app_{graph}_{mode}", "app", graph, mode, modes.MODES[mode][1],
                     lambda: app_graphs.build(graph, mode), keras_apps.versions)

    graphs = [*app_graphs.GRAPHS, *app_graphs.KERAS_GRAPHS]
    return [entry(g, m) for g in graphs for m in ("fp32", "fp16", "dynamic", "int8", "batch")]


def _mediapipe() -> list[Entry]:
    """The 14 models MediaPipe 0.10.14's wheel ships, as shipped (tests/real_models.py fetches
    them): fp16 weights behind DEQUANTIZE, two with sparse weights, custom ops."""
    from tools.zoo import modes

    real_models = modes.tests_module("real_models")

    def entry(name: str) -> Entry:
        return Entry(f"mediapipe_{name}", "mediapipe", name, "shipped", "as shipped (fp16 weights)",
                     lambda: real_models.fetch()[name].read_bytes(), lambda: "mediapipe-0.10.14")

    return [entry(n) for n in real_models.NAMES]


def _llm() -> list[Entry]:
    """Small seeded decoder-only LLMs of litert-torch's generative examples (prefill and decode
    signatures, external KV cache, odml.* composites), under each of the converter's quantizations."""
    from tools.zoo import llm_models

    def entry(arch: str, quant: str, variant: str) -> Entry:
        name = "_".join(filter(None, ("llm", arch, quant, variant.replace("+", "_"))))
        return Entry(name, "llm", arch, "+".join(filter(None, (quant, variant))), llm_models.LABELS[quant],
                     lambda: llm_models.export(arch, quant, variant), llm_models.versions,
                     ".litertlm" if "litertlm" in variant else ".tflite")

    return [entry(a, q, "") for a in llm_models.ARCHITECTURES for q in llm_models.QUANT] + [
        entry(*v) for v in llm_models.VARIANTS]


def by_name() -> dict[str, Entry]:
    """Every zoo model by name."""
    return {e.name: e for e in entries()}


def entries() -> list[Entry]:
    """Every zoo model, in build order: the app graphs (seconds each), MediaPipe's shipped models,
    the small LLM exports, the Keras applications' quantization modes on small architectures, ten
    torch exports, the other Keras architectures at fp32, the other torch exports and recipes, then
    the other Keras modes."""
    keras_first, keras_rest = _keras()
    torch_first, torch_rest = _torch()
    split = len(keras_apps_architectures()) - 6
    return (_app_graphs() + _mediapipe() + _llm() + keras_first + torch_first + keras_rest[:split] + torch_rest
            + keras_rest[split:])


def keras_apps_architectures() -> tuple[str, ...]:
    """The keras.applications architectures the zoo builds."""
    from tools.zoo import keras_apps

    return keras_apps.ARCHITECTURES
