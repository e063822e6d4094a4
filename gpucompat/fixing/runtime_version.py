"""The `min_runtime_version` metadata after a rewrite.

The converter records in a 16-byte metadata buffer the oldest TFLite runtime that has every op
version the model uses (tools/versioning/runtime_version.cc UpdateMinimumRuntimeVersionForModel:
the highest entry of its op-version table over the model's ops). A rewrite that adds an op or
raises an op's version (fold-space-to-batch makes a depthwise convolution dilated, version 2) can
need a newer runtime than the one recorded; a model that claims an older one would be loaded by a
runtime that cannot run it. So after rewriting, the recorded version is raised (never lowered) to
what the rewritten ops need.
"""

from __future__ import annotations

from gpucompat.ir import Model

# (op, version) -> minimum runtime, for every op version a rewrite can add (runtime_version.cc
# FindMinimumRuntimeVersionForOp). Ops a rewrite does not create keep the versions the converter
# already accounted for.
MINIMUM_RUNTIME = {
    ("CONV_2D", 1): "1.5.0",
    ("DEPTHWISE_CONV_2D", 1): "1.5.0",
    ("DEPTHWISE_CONV_2D", 2): "1.12.0",
    ("PAD", 1): "1.5.0",
    ("RESHAPE", 1): "1.5.0",
    ("CONCATENATION", 1): "1.5.0",
    ("DIV", 1): "1.6.0",
    ("STRIDED_SLICE", 1): "1.6.0",
    ("SUM", 1): "1.10.0",
    ("SQRT", 1): "1.10.0",
    ("TILE", 1): "1.10.1",
    ("SQUARE", 1): "1.12.0",
    ("MAXIMUM", 1): "1.14.0",
    ("SLICE", 1): "1.14.0",
}

FIELD = "min_runtime_version"
SIZE = 16  # the converter reserves 16 bytes and writes nothing longer than 15


def _key(version: str) -> tuple[int, ...]:
    """Numeric ordering of "1.14.0" style versions (CompareRuntimeVersion)."""
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def required(model: Model) -> str:
    """The newest minimum runtime among the model's ops found in MINIMUM_RUNTIME ("" if none)."""
    versions = [MINIMUM_RUNTIME.get((op.name, op.version), "")
                for graph in model.graphs for op in graph.ops]
    return max(versions, key=_key, default="")


def raise_min_runtime_version(model: Model) -> str | None:
    """Raise the model's `min_runtime_version` metadata in place to what its ops require; the new
    value when it changed, else None (no such metadata, or the recorded version suffices)."""
    entry = next((m for m in model.fb.metadata or [] if m.name in (FIELD, FIELD.encode())), None)
    buf = model.buffer(entry.buffer) if entry is not None else None
    if buf is None or buf.data is None or len(buf.data) < SIZE:
        return None
    recorded = bytes(buf.data).split(b"\0", 1)[0].decode("ascii", "replace")
    need = required(model)
    if not need or _key(need) <= _key(recorded):
        return None
    data = buf.data.copy()
    data[:] = 0
    data[:len(need)] = list(need.encode())
    buf.data = data
    return need
