"""freeze-shapes: a model with dynamic dimensions gets the static shapes of one input size.

    input [-1, H, W, 3] -> ... SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE [-1, 10]
    ==>  input [1, H, W, 3] -> ... RESHAPE [1, 10]  (fold-constants then folds the SHAPE chain)

Keras models converted without a fixed batch keep -1 in their shape signatures and compute the
batch at run time (`tf.shape(x)[0]` before Flatten / Reshape / squeeze-and-excite). The runtime
does not fold that chain at prepare, the RESHAPE's output is a dynamic tensor, and the GPU
delegate takes nothing (gpucompat/dynamic.py; tflite/core/subgraph.cc: "Attempting to use a
delegate that only supports static-sized tensors").

The frozen shape: the batch (dimension 0) is 1 unless `--input-shape NAME=d0,d1,...` says
otherwise; any other dynamic dimension must be named there, or the rewrite refuses. Every tensor
of the main subgraph then gets the shape the reference interpreter gives it when it runs at the
frozen input shapes (the runtime's own shape inference, kernel by kernel), and no shape
signature keeps a -1. Ops whose output shape depends on data (WHERE, UNIQUE, a RESHAPE whose new
shape is computed from input values) cannot be frozen honestly: the rewrite refuses, naming the op.

Safety: signature (the model's inputs accept one shape only); with --unsafe-fixes, or when
--input-shape names a shape. Verified against the original run at the frozen shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpucompat.dynamic import ALWAYS_DYNAMIC, SHAPE_INPUTS
from gpucompat.errors import GpucompatError
from gpucompat.ir import Graph, Op, Tensor, build
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext, describe
from gpucompat.rewrites.fold_constants import known_values
from gpucompat.rewrites.reference_values import ReferenceRun

BATCH_DEFAULT = 1


@dataclass
class Freeze(Match):
    """The shape each tensor of the main subgraph gets (by id), inputs included."""

    shapes: dict[int, tuple[int, ...]] = field(default_factory=dict)


class FreezeShapes(Rewrite):
    name = "freeze-shapes"
    safety = "signature"
    priority = 5  # first: every later rewrite then sees static shapes
    summary = "dynamic dimensions (a -1 batch) become static: batch 1 or --input-shape; shape chains fold"

    def __init__(self, input_shapes: dict[str, tuple[int, ...]] | None = None):
        self.input_shapes = dict(input_shapes or {})

    def candidates(self, graph: Graph, ctx):
        if graph.index != 0 or not graph.ops:
            return []
        self._check_names(graph)
        asked = any(self._named(t) not in (None, t.signature) for t in graph.inputs)
        dynamic = [t for t in graph.tensors if t.is_dynamic and not t.is_constant]
        if not asked and not dynamic:
            return []
        readers = [c for t in graph.inputs if t.is_dynamic for c in t.consumers]
        return [readers[0] if readers else next((t.producer for t in dynamic if t.producer), graph.ops[0])]

    def check(self, op: Op, ctx: RewriteContext) -> Freeze | str:
        graph = op.graph
        frozen = []
        for t in graph.inputs:
            shape = self._frozen_input(t)
            if isinstance(shape, str):
                return shape
            frozen.append(shape)
        why = _other_subgraphs_dynamic(graph) or _data_dependent(graph)
        if why:
            return why
        try:
            run = ReferenceRun(graph.model, frozen)
        except Exception as e:  # the runtime's own words say why the model cannot run so
            shapes = ", ".join(f"{t.name!r} {list(s)}" for t, s in zip(graph.inputs, frozen))
            return f"the reference interpreter cannot run the model at {shapes}: {e}"
        shapes = {id(t): s for t in graph.tensors if not t.is_constant and (s := run.shape(t)) is not None}
        shapes.update((id(t), s) for t, s in zip(graph.inputs, frozen))
        return Freeze(op, [op], shapes)

    def rewrite(self, match: Freeze, ctx: RewriteContext) -> None:
        for t in match.anchor.graph.tensors:
            if id(t) in match.shapes:
                build.reshape_tensor(t, match.shapes[id(t)])

    def _named(self, t: Tensor) -> tuple[int, ...] | None:
        """The shape --input-shape gives input `t` (by tensor name or signature-def name)."""
        for name in _names(t):
            if name in self.input_shapes:
                return self.input_shapes[name]
        return None

    def _check_names(self, graph: Graph) -> None:
        """Every name given to --input-shape is an input (else a usage error, exit 2)."""
        known = {n for t in graph.inputs for n in _names(t)}
        for name in self.input_shapes:
            if name not in known:
                inputs = ", ".join(repr(t.name) for t in graph.inputs)
                raise GpucompatError(f"--input-shape names {name!r}, which is not an input of the model "
                                     f"(inputs: {inputs})")

    def _frozen_input(self, t: Tensor) -> tuple[int, ...] | str:
        """The static shape input `t` gets, or why it cannot get one."""
        sig = t.signature
        named = self._named(t)
        if named is not None:
            if len(named) != len(sig) or any(s >= 0 and s != n for s, n in zip(sig, named)) or min(named) < 1:
                raise GpucompatError(f"--input-shape {t.name}={','.join(map(str, named))} does not fit the input's "
                                     f"shape {list(sig)} (-1: dynamic)")
            return tuple(named)
        unknown = [i for i, d in enumerate(sig) if d < 0 and i > 0]
        if unknown:
            example = ",".join(str(BATCH_DEFAULT) if i == 0 else ("N" if d < 0 else str(d)) for i, d in enumerate(sig))
            return (f"input {t.name!r} {list(sig)}: dimension{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(map(str, unknown))} unknown besides the batch; name the size with "
                    f"--input-shape {t.name}={example}")
        return tuple(BATCH_DEFAULT if d < 0 else d for d in sig)


def _names(t: Tensor) -> list[str]:
    """An input's tensor name and its signature-def names."""
    names = [t.name]
    for rec, linked in t.graph.model.signature_links:
        if linked is t and rec.name:
            names.append(rec.name.decode() if isinstance(rec.name, bytes) else rec.name)
    return names


def _other_subgraphs_dynamic(graph: Graph) -> str | None:
    """Subgraphs other than the main one are run with the shapes their callers give them; their
    dynamic tensors are not frozen here."""
    for g in graph.model.graphs[1:]:
        t = next((t for t in g.tensors if t.is_dynamic), None)
        if t is not None:
            return f"subgraph {g.index} has a dynamic tensor ({t.name!r} {list(t.signature)}): not frozen"
    return None


def _data_dependent(graph: Graph) -> str | None:
    """The first op whose output shape depends on data values even at a fixed input shape."""
    known = known_values(graph, all_static=True)
    for op in graph.ops:
        if op.builtin in ALWAYS_DYNAMIC:
            return f"{describe(op)}: its output shape depends on the data, not only on the input shape"
        for i in SHAPE_INPUTS.get(op.builtin, ()):
            t = op.input(i)
            if t is not None and not t.is_constant and id(t) not in known:
                return (f"{describe(op)}: input {i} ({t.name!r}), which decides its output shape, is computed "
                        f"from the model's input values: its shape is only known at run time")
    return None
