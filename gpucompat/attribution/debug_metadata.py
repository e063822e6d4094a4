"""The locations TF's converter writes into the `debug_metadata` entry (with
`converter.serialize_debug_metadata = True`): each op's MLIR location tree, read back to the
scoped names in it. Unlike tensor names they survive for the ops writing model outputs, which the
converter renames after the signature.

The entry is a flatbuffer (tensorflow/compiler/mlir/lite/schema/debug_metadata.fbs): a
ConversionDebugMetadata holds, per subgraph, per operator, indices into one list of attributes;
an attribute is a Location (a name, a call site, a fusion of locations, ...). `Operator.
debug_metadata_index` is the operator's position in its subgraph's list. A name location carries
the TF op's scoped name and the function it was traced in (`net_1/pick_1/GatherNd@__inference_
function_77`); a bare node name (`GatherNd:`) and a call site's caller (the signature's wrapper)
say nothing of the layer and are left out."""

from __future__ import annotations

import struct

from gpucompat.attribution.fields import byte, byte_vector, root, string, table, tables, uint, uints

_LOCATION, _CALL_SITE, _FUSED, _NAME = 1, 1, 3, 4  # Attribute.Location; LocationType members


def op_locations(data: bytes | None) -> list[list[list[str]]]:
    """Per subgraph, per operator (by its debug_metadata_index), the scoped names of its
    location; [] when there is no entry or it cannot be read."""
    if not data:
        return []
    try:
        return _read(bytearray(data))
    except (IndexError, struct.error, UnicodeDecodeError, RecursionError):
        return []


def _read(buf: bytearray) -> list[list[list[str]]]:
    top = root(buf)
    kinds, metas = byte_vector(top, 4), tables(top, 6)
    if not metas or kinds[0] != 1:  # ConversionDebugMetadata
        return []
    meta = metas[0]
    attributes = list(zip(byte_vector(meta, 6), tables(meta, 8)))
    memo: dict[int, list[str]] = {}

    def names(index: int) -> list[str]:
        if index not in memo:
            memo[index] = []  # a cycle ends here
            memo[index] = _names(attributes, index, names)
        return memo[index]

    return [[list(dict.fromkeys(n for i in uints(op, 4) for n in names(i))) for op in tables(sg, 4)]
            for sg in tables(meta, 4)]


def _names(attributes: list, index: int, names) -> list[str]:
    """The scoped names under one attribute."""
    if not 0 <= index < len(attributes) or attributes[index][0] != _LOCATION:
        return []
    location = attributes[index][1]
    kind, loc = byte(location, 4), table(location, 6)
    if loc is None:
        return []
    if kind == _NAME:
        name = string(loc, 4) or ""
        scoped = name.split("@", 1)[0]
        return ([scoped] if "/" in scoped and not scoped.endswith(":") else []) + names(uint(loc, 6))
    if kind == _FUSED:
        return [n for i in uints(loc, 4) for n in names(i)]
    if kind == _CALL_SITE:
        return names(uint(loc, 4))  # the callee; the caller is the code that called it
    return []
