"""The image normalization a model's TFLite metadata states: the NormalizationOptions (per-channel
mean and std, applied to 0-255 pixels as (pixel - mean) / std) in the process units of the first
input's TensorMetadata, inside the `TFLITE_METADATA` buffer that the tflite-support metadata writer
(and MediaPipe's model makers) store.

That buffer is a flatbuffer of tflite-support's metadata_schema.fbs (file identifier "M001"). It is
read here with the flatbuffers runtime alone, field by field, instead of the schema's generated
code: the path to the normalization is five tables deep and never changes within "M001".
"""

from __future__ import annotations

import struct

import flatbuffers
from flatbuffers import number_types
from flatbuffers.table import Table

METADATA_NAME = "TFLITE_METADATA"
FILE_IDENTIFIER = b"M001"
# Field positions in metadata_schema.fbs (a union takes two: its type, then its value)
SUBGRAPH_METADATA = 3  # ModelMetadata.subgraph_metadata
INPUT_TENSOR_METADATA = 2  # SubGraphMetadata.input_tensor_metadata
PROCESS_UNITS = 4  # TensorMetadata.process_units
OPTIONS_TYPE, OPTIONS = 0, 1  # ProcessUnit.options (union ProcessUnitOptions)
NORMALIZATION_OPTIONS = 1  # ProcessUnitOptions' first member
MEAN, STD = 0, 1  # NormalizationOptions


def image_normalization(model) -> tuple[list[float], list[float]] | None:
    """(mean, std) of the main subgraph's first input as `model`'s (ir.Model) metadata states it,
    or None when the model has no such metadata or it cannot be read."""
    data = model.metadata().get(METADATA_NAME)
    if not data or data[4:8] != FILE_IDENTIFIER:
        return None
    try:
        return _first_input_normalization(bytearray(data))
    except (struct.error, IndexError, ValueError, TypeError):
        return None


def _first_input_normalization(data: bytearray) -> tuple[list[float], list[float]] | None:
    root = Table(data, flatbuffers.encode.Get(flatbuffers.packer.uoffset, data, 0))
    subgraphs = _tables(root, SUBGRAPH_METADATA)
    inputs = _tables(subgraphs[0], INPUT_TENSOR_METADATA) if subgraphs else []
    for unit in _tables(inputs[0], PROCESS_UNITS) if inputs else []:
        if _ubyte(unit, OPTIONS_TYPE) == NORMALIZATION_OPTIONS:
            options = _table(unit, OPTIONS)
            mean, std = _floats(options, MEAN), _floats(options, STD)
            if mean and std:
                return mean, std
    return None


def _slot(tab: Table, field: int) -> int:
    return tab.Offset(4 + 2 * field)


def _table(tab: Table, field: int) -> Table | None:
    o = _slot(tab, field)
    return Table(tab.Bytes, tab.Indirect(tab.Pos + o)) if o else None


def _tables(tab: Table, field: int) -> list[Table]:
    o = _slot(tab, field)
    if not o:
        return []
    start = tab.Vector(o)
    return [Table(tab.Bytes, tab.Indirect(start + 4 * i)) for i in range(tab.VectorLen(o))]


def _floats(tab: Table | None, field: int) -> list[float]:
    o = _slot(tab, field) if tab is not None else 0
    return [float(v) for v in tab.GetVectorAsNumpy(number_types.Float32Flags, o)] if o else []


def _ubyte(tab: Table, field: int) -> int:
    o = _slot(tab, field)
    return tab.Get(number_types.Uint8Flags, tab.Pos + o) if o else 0
