"""Test models built in code with TensorFlow's converter: seeded, built once per test session.

A builder is a function returning .tflite bytes, registered with @builder("name"). Tests ask the
`models` fixture for a path (`models.path("conv_relu")`); each model is converted the first time
it is asked for and kept in the session's temporary directory.

Helpers here cover the ways the converter is driven: from a tf.function (`convert_fn`), with
fp16 weights, with dynamic-range or full-integer quantization, and with sparse weights.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

BUILDERS: dict[str, Callable[[], bytes]] = {}


def builder(name: str):
    """Register a model builder under `name`."""

    def wrap(fn: Callable[[], bytes]):
        if name in BUILDERS:
            raise ValueError(f"duplicate test model {name}")
        BUILDERS[name] = fn
        return fn

    return wrap


def tf():
    """TensorFlow, imported on first use and seeded."""
    import tensorflow as tf_

    tf_.random.set_seed(0)
    return tf_


def rng(seed: int = 0) -> np.random.Generator:
    """A seeded numpy generator for weights."""
    return np.random.default_rng(seed)


def convert_fn(
    fn: Callable,
    input_specs: Sequence[tuple[Sequence[int | None], object]],
    *,
    fp16: bool = False,
    quantize: str | None = None,
    sparse: bool = False,
    select_tf_ops: bool = False,
    representative: Callable | None = None,
) -> bytes:
    """Convert a Python function of tensors into .tflite bytes.

    input_specs: [(shape, dtype)], None in a shape makes that dimension dynamic.
    quantize: None, "dynamic" (dynamic-range weights), "int8" (full integer with float I/O) or
    "int8-io" (full integer including int8 inputs/outputs).
    """
    t = tf()

    class Module(t.Module):
        @t.function(input_signature=[t.TensorSpec(list(s), d) for s, d in input_specs])
        def __call__(self, *args):
            return fn(*args)

    module = Module()
    conv = t.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    if select_tf_ops:
        conv.target_spec.supported_ops = [t.lite.OpsSet.TFLITE_BUILTINS, t.lite.OpsSet.SELECT_TF_OPS]
    if fp16:
        conv.optimizations = [t.lite.Optimize.DEFAULT]
        conv.target_spec.supported_types = [t.float16]
    if sparse:
        conv.optimizations = [t.lite.Optimize.EXPERIMENTAL_SPARSITY]
    if quantize:
        conv.optimizations = [t.lite.Optimize.DEFAULT]
        if quantize in ("int8", "int8-io"):
            gen = rng(1)

            def default_rep():
                for _ in range(8):
                    yield [gen.standard_normal([d or 1 for d in s]).astype(np.float32) for s, _ in input_specs]

            conv.representative_dataset = representative or default_rep
            conv.target_spec.supported_ops = [t.lite.OpsSet.TFLITE_BUILTINS_INT8]
            if quantize == "int8-io":
                conv.inference_input_type = t.int8
                conv.inference_output_type = t.int8
    return conv.convert()


def const(shape: Sequence[int], seed: int = 0, scale: float = 0.5) -> np.ndarray:
    """Seeded float32 weights."""
    return (rng(seed).standard_normal(list(shape)) * scale).astype(np.float32)


class ModelCache:
    """Builds registered models on demand into one directory, once each."""

    def __init__(self, directory: str):
        self.directory = directory
        self._paths: dict[str, str] = {}

    def path(self, name: str) -> str:
        """Path of the built model `name` (built now if it was not yet)."""
        if name not in self._paths:
            data = BUILDERS[name]()
            p = os.path.join(self.directory, f"{name}.tflite")
            with open(p, "wb") as f:
                f.write(data)
            self._paths[name] = p
        return self._paths[name]

    def bytes(self, name: str) -> bytes:
        """The built model's bytes."""
        with open(self.path(name), "rb") as f:
            return f.read()
