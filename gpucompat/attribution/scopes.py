"""Keras layers and TensorFlow name scopes from TF's converter's locations.

A location is the scope path of the TF op an op came from: `net_1/block_1/inner_conv_1/convolution`.
- Keras: the first part is the model's own scope; the layers follow, nested models and layers
  inside layers included; the last part is the TF op. Keras 3 enters every scope with a suffix,
  `_1` on the first call of a layer and a higher one on later calls (a layer named `conv_1`
  becomes `conv_1_1`), so each layer part loses one `_N` and the layers end at the first part
  without one (a TF helper scope such as `moments`). tf.keras (Keras 2) adds no suffix: every
  part between the model and the op is read as a layer.
- TensorFlow without Keras: the scopes are the path, the last part is the TF op; a name
  without a scope has no source.
- onnx2tf builds a tf.keras model of TF calls, one auto-named layer per call (`tf.math.add_3`,
  never the user's); a name it keeps follows that layer: the ONNX node's, its leading "/"
  written `wa/` by the command line (`model_37/tf.nn.softmax_1/wa/layers.0/attn/Softmax`) or
  left as an empty part by the Python API. Such a name is the source (the ONNX node name, its
  leading "/" dropped); a call's generated layer alone is none.
A layer's class is known only from Keras's automatic names (`dense_6` is a Dense,
`layer_normalization_4` a LayerNormalization): a layer the user named has no kind."""

from __future__ import annotations

import json
import re
import struct
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

from gpucompat.attribution import fields
from gpucompat.attribution.reading import Reading

_SUFFIX = re.compile(r"^(.+)_\d+$")
_DEFAULT_MODEL = re.compile(r"^(?:model|functional|sequential)(?:_\d+)?$")
_TF_CALL = re.compile(r"^tf\.[\w.]+$")  # tf.keras's layer for a TF function call (TFOpLambda)
_ONNX_MARKS = ("wa", "")  # what stands for an ONNX name's leading "/" after such a layer
# TF ops a converter fuses into the op before them: the op is the other piece's
_EPILOGUE_OPS = {"Relu", "Elu", "Selu", "Tanh", "Sigmoid", "BiasAdd", "LeakyRelu", "FusedBatchNormV", "Gelu"}
KERAS_MODEL_TYPE = 2  # ConversionMetadata.environment.model_type of a converter fed a Keras model


def conversion_model_type(data: bytes | None) -> int | None:
    """The model type TF's converter records in CONVERSION_METADATA
    (ConversionMetadata.environment.model_type), None when absent or unreadable."""
    if not data or len(data) < 8:
        return None
    try:
        env = fields.table(fields.root(bytearray(data)), 4)  # environment
        return None if env is None else fields.int32(env, 8)  # model_type, its third field
    except (IndexError, struct.error):
        return None


@cache
def keras_classes() -> dict[str, str]:
    """Keras's automatic layer-name stems and the classes they name (`re_lu`: ReLU), as Keras
    3.15's to_snake_case writes them for every class in keras.layers."""
    text = resources.files("gpucompat.attribution").joinpath("keras_layers.json").read_text()
    return json.loads(text)


@dataclass(frozen=True)
class ScopeReading:
    """How one model's scope paths read: Keras (with the model's own scope, and whether every
    layer scope carries Keras 3's suffix) or plain TensorFlow."""

    framework: str
    root: str | None = None
    suffixed: bool = False

    def read(self, location: str) -> Reading | None:
        """The location's layer path, or None when it names no layer or scope."""
        parts = location.split("/")
        if self.framework == "onnx":
            return _onnx_reading(parts)
        if self.framework == "tensorflow":
            return Reading(parts[:-1], [None] * (len(parts) - 1)) if len(parts) > 1 else None
        if len(parts) < 2 or parts[0] != self.root:
            return None
        layers = parts[1:-1]
        call = next((i for i, p in enumerate(layers) if _TF_CALL.match(p)), None)
        if call is not None:
            layers = layers[:call]  # a TF call's generated layer and what it holds: not the user's layers
        if self.suffixed:
            read = []
            for part in layers:
                m = _SUFFIX.match(part)
                if not m:
                    break
                read.append(m.group(1))
            layers = read
        return Reading(layers, [_keras_kind(p) for p in layers])

    def epilogue(self, location: str) -> bool:
        """True when the location's TF op is one a converter fuses into another op (an
        activation, a bias add)."""
        return location.rsplit("/", 1)[-1].rstrip("0123456789") in _EPILOGUE_OPS


def _onnx_reading(parts: list[str]) -> Reading | None:
    """The ONNX node name an onnx2tf location keeps after its TF call's layer, or None."""
    call = next((i for i, p in enumerate(parts) if _TF_CALL.match(p)), None)
    if call is None or len(parts) < call + 3 or parts[call + 1] not in _ONNX_MARKS:
        return None
    named = parts[call + 2:]
    return Reading(named, [None] * len(named))


def _keras_kind(layer: str) -> str | None:
    """The class behind an automatic Keras layer name, else None."""
    m = _SUFFIX.match(layer)
    return keras_classes().get(m.group(1) if m else layer)


def scope_reading(locations: list[str], keras_hint: bool) -> ScopeReading | None:
    """How the model's TF-converter locations read; None when no location has a scope.
    `keras_hint`: the file says a Keras model was converted (its conversion metadata, or inputs
    named as Keras names them). A Keras model is also recognised by its default model name or
    by Keras 3's suffixes."""
    scoped = [loc.split("/") for loc in locations if "/" in loc]
    if not scoped:
        return None
    root, count = Counter(parts[0] for parts in scoped).most_common(1)[0]
    nested = [parts[1] for parts in scoped if parts[0] == root and len(parts) > 2]
    suffixed = bool(nested) and sum(1 for p in nested if _SUFFIX.match(p)) >= 0.8 * len(nested)
    owns_most = count * 2 > len(scoped)
    if any(_onnx_reading(parts) for parts in scoped):
        return ScopeReading("onnx")
    if owns_most and (keras_hint or _DEFAULT_MODEL.match(root) or (suffixed and _SUFFIX.match(root))):
        return ScopeReading("keras", root, suffixed)
    return ScopeReading("tensorflow")
