"""LiteRT-LM bundles (.litertlm): find the TFLite models inside and address each as
`BUNDLE::section N`, a path the reader, `check`, `report` and `confirm` accept like a file.

The layout, as litert-lm-builder 0.18 writes and reads it (litertlm_core.py and the header
schema): the magic "LITERTLM", three little-endian uint32 (major, minor, patch version) at byte 8,
a uint64 at byte 24 giving where the header ends, and from byte 32 a flatbuffer LiteRTLMMetaData
whose section_metadata.objects lists every section: begin_offset, end_offset (uint64, from the
file's start) and data_type (an AnySectionDataType). Sections are read as slices of the file's
map, never copied.
"""

from __future__ import annotations

import contextlib
import os
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from flatbuffers import number_types as n
from flatbuffers.table import Table

from gpucompat.errors import ModelError

MAGIC = b"LITERTLM"
SEPARATOR = "::section "
_TFLITE_MODEL = 3
# AnySectionDataType (litertlm_header_schema): what each section holds.
KINDS = {0: "NONE", 1: "GenericBinaryData", 2: "Deprecated", 3: "TFLiteModel", 4: "SP_Tokenizer",
         5: "LlmMetadataProto", 6: "HF_Tokenizer_Zlib", 7: "TFLiteWeights", 8: "EmbeddingMetadataProto",
         9: "ExecutorMetadataProto", 10: "TtsMetadataProto", 11: "AsrMetadataProto"}


@dataclass(frozen=True)
class Section:
    """One section of a bundle: its position in the section list, type and byte range."""

    index: int
    kind: int
    begin: int
    end: int
    is_tflite: bool

    @property
    def kind_name(self) -> str:
        """The section's data type as the format names it."""
        return KINDS.get(self.kind, f"unknown type {self.kind}")


def is_bundle(path: str) -> bool:
    """True when the file starts with the LiteRT-LM magic."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def split(path: str) -> tuple[str, int | None]:
    """("bundle.litertlm", N) for "bundle.litertlm::section N"; (path, None) for a plain path."""
    head, sep, tail = path.rpartition(SEPARATOR)
    if sep and tail.isdigit():
        return head, int(tail)
    return path, None


def section_path(bundle: str, index: int) -> str:
    """The name a bundle's section is checked and reported under."""
    return f"{bundle}{SEPARATOR}{index}"


def sections(path: str, raw) -> list[Section]:
    """Every section of the bundle whose bytes are `raw` (a map of `path`), or a ModelError."""
    try:
        header_end = struct.unpack_from("<Q", raw, 24)[0]
        if not 32 < header_end <= len(raw):
            raise ValueError(f"header end {header_end} is outside the file")
        root = Table(raw, 32 + struct.unpack_from("<I", raw, 32)[0])
        meta = _child(root, 1)  # SectionMetadata { objects: [SectionObject] }
        out = []
        if meta is not None and meta.Offset(4):
            vec = meta.Vector(meta.Offset(4))
            for i in range(meta.VectorLen(meta.Offset(4))):
                obj = Table(raw, meta.Indirect(vec + 4 * i))
                begin, end = _scalar(obj, 1, n.Uint64Flags), _scalar(obj, 2, n.Uint64Flags)
                if not begin <= end <= len(raw):
                    raise ValueError(f"section {i} spans bytes {begin}..{end} of a {len(raw)}-byte file")
                kind = _scalar(obj, 3, n.Uint8Flags)
                tflite = kind == _TFLITE_MODEL or bytes(raw[begin + 4: begin + 8]) == b"TFL3"
                out.append(Section(i, kind, begin, end, tflite))
    except (struct.error, ValueError, IndexError) as e:
        raise ModelError(path, f"is not a valid LiteRT-LM bundle ({e})") from None
    return out


def _child(t: Table, field: int) -> Table | None:
    o = t.Offset(4 + 2 * field)
    return Table(t.Bytes, t.Indirect(t.Pos + o)) if o else None


def _scalar(t: Table, field: int, flags) -> int:
    o = t.Offset(4 + 2 * field)
    return t.Get(flags, t.Pos + o) if o else 0


def section_bytes(path: str, raw, index: int):
    """The bytes of section `index` of the bundle mapped as `raw`: a zero-copy slice."""
    found = sections(path, raw)
    if not 0 <= index < len(found):
        raise ModelError(section_path(path, index), f"the bundle has {len(found)} sections")
    s = found[index]
    return memoryview(raw)[s.begin:s.end]


@contextlib.contextmanager
def as_files(paths: list[str]) -> Iterator[list[str]]:
    """`paths` with every bundle section written to a temporary .tflite file of its own (for a
    runtime that opens files by name); the files are removed on exit."""
    from gpucompat.ir.reader import map_model

    with tempfile.TemporaryDirectory(prefix="gpucompat-sections-") as tmp:
        out = []
        for i, p in enumerate(paths):
            if split(p)[1] is None:
                out.append(p)
                continue
            out.append(os.path.join(tmp, f"{i}.tflite"))
            with open(out[-1], "wb") as f:
                f.write(map_model(p))
        yield out
