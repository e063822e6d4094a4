"""Every op's source: read its locations the way the converter that wrote them writes them.

The model decides how names read: litert-torch's locations (a qualified root class) are PyTorch
modules; TF's converter's are Keras layers or TensorFlow name scopes (scopes.py). A fused op's
pieces are read together: an activation or bias piece gives way to the op it was fused into, and
pieces from different layers give the innermost layer holding them all, never one of them."""

from __future__ import annotations

from gpucompat.attribution import debug_metadata, scopes, torch_names
from gpucompat.attribution.locations import locations, op_names
from gpucompat.attribution.reading import Reading, common_depth
from gpucompat.attribution.scopes import ScopeReading
from gpucompat.attribution.source import SEPARATOR, Source, unattributed
from gpucompat.attribution.torch_names import ModuleNames

_KERAS_INPUTS = ("keras_tensor", "input_layer")


def attribute(model, module_names: ModuleNames | None = None) -> dict[tuple[int, int], Source]:
    """Each op's source, keyed (subgraph, op index). `module_names`: the PyTorch model's
    named_modules(), which turns litert-torch's readings into exact dotted paths."""
    reader = Reader(model, module_names)
    return {(g.index, i): reader.source(op) for g in model.graphs for i, op in enumerate(g.ops)}


class Reader:
    """How one model's names read (decided once from all of them), to give any op of it, or of a
    model rewritten from it, its source."""

    def __init__(self, model, module_names: ModuleNames | None = None):
        self.module_names = module_names
        self.debug = debug_metadata.op_locations(model.metadata().get("debug_metadata"))
        self._named = {id(op): self.names(op) for g in model.graphs for op in g.ops}  # read once
        every = list(dict.fromkeys(loc for names in self._named.values() for loc in locations(names)))
        self.scoped = scopes.scope_reading([loc for loc in every if torch_names.calls(loc) is None],
                                           _keras_hint(model))
        torch_made = any(torch_names.calls(loc) for loc in every)
        self.framework = "pytorch" if torch_made else self.scoped and self.scoped.framework

    def names(self, op) -> tuple[str, ...]:
        """The op's output tensor names, then the names of its debug-metadata location."""
        index = op.fb.debugMetadataIndex
        graph = op.graph.index
        debug = self.debug[graph][index] if graph < len(self.debug) and 0 <= index < len(self.debug[graph]) else []
        return tuple(dict.fromkeys((*op_names(op), *debug)))

    def source(self, op) -> Source:
        """The op's source (unattributed when none of its names reads)."""
        names = self._named.get(id(op)) or self.names(op)
        return _source(names, locations(names), self.scoped, self.module_names) \
            or unattributed(names, self.framework)


def _source(names: tuple[str, ...], locs: list[str], scoped: ScopeReading | None,
            module_names: ModuleNames | None) -> Source | None:
    """The op's source, None when none of its names reads."""
    torch_calls = [c for c in (torch_names.calls(loc) for loc in locs) if c is not None]
    if torch_calls:
        core = [c for c in torch_calls if not torch_names.epilogue(c[1])] or torch_calls
        readings = [torch_names.reading(root, chain) for root, chain in core]
        if module_names is not None:
            resolved = [module_names.resolve(r) for r in readings]
            if all(r is not None for r in resolved):
                readings = resolved
        return _joined("pytorch", readings, names)
    if scoped is None:
        return None
    core = [loc for loc in locs if not scoped.epilogue(loc)] or locs
    readings = [r for r in (scoped.read(loc) for loc in core) if r is not None]
    return _joined(scoped.framework, readings, names) if readings else None


def _joined(framework: str, readings: list[Reading], names: tuple[str, ...]) -> Source:
    """The source the readings share: the innermost layer or module holding them all."""
    depth = common_depth(readings)
    first = readings[0]
    parts = first.parts[:depth]
    exact = all(r.exact for r in readings) and "?" not in parts
    return Source(framework, SEPARATOR[framework].join(parts), first.kind_at(depth), exact, names)


def _keras_hint(model) -> bool:
    """True when the file says a Keras model was converted: its conversion metadata's model
    type, or inputs named as Keras 3 names them."""
    if scopes.conversion_model_type(model.metadata().get("CONVERSION_METADATA")) == scopes.KERAS_MODEL_TYPE:
        return True
    return any(k in t.name for g in model.graphs for t in g.inputs for k in _KERAS_INPUTS)
