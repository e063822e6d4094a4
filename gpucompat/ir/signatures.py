"""A model's signatures (an LLM export's prefill_8, prefill_32 and decode) and the subgraphs they
run, and a model rewritten so that one signature's subgraph is the main one (subgraph 0): every
command that runs the main subgraph then runs that signature, with every reference to a subgraph
(control flow, a composite's decomposition, the signature table) following the move."""

from __future__ import annotations

from gpucompat.errors import GpucompatError
from gpucompat.ir.model import Model

# Option fields through which an op calls other subgraphs (builtin options and, for
# STABLEHLO_COMPOSITE's decomposition, the second options table).
SUBGRAPH_FIELDS = ("condSubgraphIndex", "bodySubgraphIndex", "thenSubgraphIndex", "elseSubgraphIndex",
                   "initSubgraphIndex", "decompositionSubgraphIndex", "subgraph")


def signatures(model: Model) -> list[tuple[str, int]]:
    """(signature key, subgraph index) of every signature the file declares, in file order."""
    out = []
    for sd in model.fb.signatureDefs or []:
        key = sd.signatureKey.decode() if isinstance(sd.signatureKey, bytes) else sd.signatureKey
        out.append((key or "", int(sd.subgraphIndex or 0)))
    return out


def subgraph_calls(op) -> list[tuple[object, str]]:
    """(options record, field) of every subgraph index the op's options name."""
    tables = [t for t in (op.fb.builtinOptions, getattr(op.fb, "builtinOptions2", None)) if t is not None]
    return [(t, f) for t in tables for f in SUBGRAPH_FIELDS if getattr(t, f, None) is not None]


def composite_name(op) -> str:
    """The composite's name (litert-torch's "odml.rms_norm"), "" when the file names none."""
    name = getattr(getattr(op.fb, "builtinOptions2", None), "name", None)
    return (name.decode("utf-8", "replace") if isinstance(name, bytes) else name) or ""


def decomposition(op) -> int | None:
    """The index of the subgraph a composite decomposes into, None when it names none."""
    calls = [(o, f) for o, f in subgraph_calls(op) if f == "decompositionSubgraphIndex"]
    return int(getattr(*calls[0])) if calls else None


def subgraph_of(model: Model, name: str, what: str) -> int:
    """The subgraph the signature `name` runs; a one-line error naming the signatures when the
    model (`what`) has none of that name."""
    found = dict(signatures(model))
    if name not in found:
        listed = ", ".join(found) or "none"
        raise GpucompatError(f"{what}: no signature {name!r} (its signatures: {listed})")
    return found[name]


def make_main(model: Model, index: int) -> None:
    """Swap subgraph `index` with subgraph 0, in place, and every reference to either."""
    if index == 0:
        return
    graphs = model.graphs
    graphs[0], graphs[index] = graphs[index], graphs[0]
    _renumber(model, {0: index, index: 0})


def _renumber(model: Model, moved: dict[int, int]) -> None:
    """Every subgraph index an op's options or a signature names, old -> new as `moved` says
    (indices it leaves out stay)."""
    for graph in model.graphs:
        for op in graph.ops:
            for options, field in subgraph_calls(op):
                value = int(getattr(options, field))
                setattr(options, field, moved.get(value, value))
    for sd in model.fb.signatureDefs or []:
        index = int(sd.subgraphIndex or 0)
        sd.subgraphIndex = moved.get(index, index)


def drop_unreached(model: Model) -> list[int]:
    """Remove, in place, every subgraph that neither subgraph 0 nor a signature reaches (a
    composite's decomposition once the composite is inlined), renumbering every reference to the
    others; the removed indices, as they were."""
    keep = set(reachable(model, 0))
    for _, index in signatures(model):
        if 0 <= index < len(model.graphs):
            keep.update(reachable(model, index))
    gone = [i for i in range(len(model.graphs)) if i not in keep]
    if not gone:
        return []
    _renumber(model, {old: new for new, old in enumerate(sorted(keep))})
    model.graphs[:] = [model.graphs[i] for i in sorted(keep)]
    return gone


def reachable(model: Model, start: int = 0) -> list[int]:
    """The subgraphs a run of subgraph `start` may enter (itself, and every subgraph its ops call,
    transitively), in index order: another signature's subgraph is not one of them."""
    seen, todo = {start}, [start]
    while todo:
        for op in model.graphs[todo.pop()].ops:
            for options, field in subgraph_calls(op):
                index = int(getattr(options, field))
                if 0 <= index < len(model.graphs) and index not in seen:
                    seen.add(index)
                    todo.append(index)
    return sorted(seen)
