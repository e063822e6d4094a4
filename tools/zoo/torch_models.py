"""The zoo's PyTorch models, exported by tools/zoo/torch_export.py in their own venv
(~/.cache/gpucompat-zoo/torchvenv: torch 2.14.1 + torchvision 0.29.1, litert-torch 0.10.0,
ai-edge-quantizer), so torch never enters the main environment."""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from tools.zoo import cache

SCRIPT = Path(__file__).with_name("torch_export.py")
# exported, and also quantized with these ai-edge-quantizer recipes (a few seconds each)
QUANTIZED = ("resnet18", "mobilenet_v3_small", "transformer_encoder", "lraspp_mobilenet_v3_large",
             "ssdlite320_mobilenet_v3_large", "squeezenet1_1", "shufflenet_v2_x0_5", "googlenet",
             "deeplabv3_mobilenet_v3_large", "transformer_decoder")
RECIPES = {"aeq_dynamic": "dynamic_wi8_afp32", "aeq_weight_only": "weight_only_wi8_afp32",
           "aeq_int4_blockwise": "dynamic_wi4b32_afp32"}


def python() -> Path:
    """The venv's Python (install it with: python -m venv DIR; DIR/bin/pip install torch==2.14.1
    torchvision==0.29.1 litert-torch==0.10.0 ai-edge-quantizer)."""
    return cache.root() / "torchvenv" / "bin" / "python"


def run_in_venv(script: Path, *args: str) -> str:
    """`script` (one of the zoo's export scripts) in the venv; its stdout (a failure raises with
    the last line of stderr)."""
    proc = subprocess.run([str(python()), str(script), *args], capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        last = [line for line in proc.stderr.splitlines() if line.strip()][-1:] or [f"exit {proc.returncode}"]
        raise RuntimeError(f"{script.name} {' '.join(args[:3])}: {last[0]}")
    return proc.stdout.strip()


def _run(*args: str) -> str:
    """torch_export.py in the venv."""
    return run_in_venv(SCRIPT, *args)


@functools.cache
def versions() -> str:
    """The torch-side tools' versions (part of the cache key)."""
    return _run("versions")


def export(name: str) -> bytes:
    """The model `name` of torch_export.MODELS, exported."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.tflite"
        _run("export", name, str(out))
        return out.read_bytes()


def quantized(name: str, mode: str) -> bytes:
    """The exported `name` (cached as torch_NAME_fp32) under the recipe RECIPES[mode]."""
    source = cache.model_path(versions(), f"torch_{name}_fp32")
    if not source.is_file():
        cache.write_atomically(source, export(name))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.tflite"
        _run("quantize", RECIPES[mode], str(source), str(out))
        return out.read_bytes()
