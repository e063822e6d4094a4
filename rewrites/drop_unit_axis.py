"""drop-unit-axis: rank-5 tensors of attention reshapes become rank 4 by dropping a size-1 axis.

    x -> RESHAPE [1, N, 3, H, D] -> TRANSPOSE [2, 0, 3, 1, 4] -> [3, 1, H, N, D] -> UNPACK axis 0
    ==>  x -> RESHAPE [N, 3, H, D] -> TRANSPOSE [1, 2, 0, 3] -> [3, H, N, D] -> UNPACK axis 0
             -> RESHAPE each [H, N, D] to [1, H, N, D]

    k -> RESHAPE [1, T, G, 1, D] -> BROADCAST_TO [1, T, G, R, D] -> RESHAPE [1, T, G*R, D]
    ==>  k -> RESHAPE [T, G, 1, D] -> BROADCAST_TO [T, G, R, D] -> RESHAPE [1, T, G*R, D]

The split of a fused query/key/value projection (and other multi-head reshapes) goes through
rank-5 tensors, which no GPU delegate takes (rank at most 4: the ops stay on the CPU and split the
graph). When the rank-5 tensor made by a RESHAPE has an axis of size 1, that axis carries no data:
removing it changes no element's row-major position, so the RESHAPE writes the same bytes at rank
4, each TRANSPOSE moves the same elements with the axis left out of its permutation, a
BROADCAST_TO whose target is 1 on that axis repeats the same elements (litert-torch's grouped-query
attention repeats each key/value head this way), an UNPACK along another axis yields the same
slices (at rank 3, reshaped back to the original rank 4), and a RESHAPE reading the region reads
the same bytes. The region is the RESHAPE's rank-5 output and the rank-5 TRANSPOSE and
BROADCAST_TO outputs after it; its readers must be such ops, UNPACKs or RESHAPEs to rank 4 or
less, otherwise the rewrite refuses and names the reader. Only where the profile rejects an op of
the region (a rank-4 BROADCAST_TO is then substitute-broadcast-to's).

Safety: exact (data is moved, never computed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, Tensor, build
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext, describe
from gpucompat.rewrites.matching import B, int_values, of_type

RANK = 5


@dataclass
class Region(Match):
    """The rank-5 tensors (by id: the unit axis each drops), the TRANSPOSEs and BROADCAST_TOs
    inside the region (`movers`, in region order), and the UNPACKs that read it."""

    unit: dict[int, int] = field(default_factory=dict)
    tensors: list[Tensor] = field(default_factory=list)
    movers: list[Op] = field(default_factory=list)
    unpacks: list[Op] = field(default_factory=list)


class DropUnitAxis(Rewrite):
    name = "drop-unit-axis"
    safety = "exact"
    priority = 15  # after cleanup, before the folds and substitutions
    summary = "rank-5 tensors with a size-1 axis (attention reshapes) become rank 4"

    def candidates(self, graph, ctx):
        return [op for op in of_type(graph, "RESHAPE")
                if op.outputs[0].rank == RANK and op.input(0) is not None and op.input(0).rank < RANK]

    def check(self, op: Op, ctx: RewriteContext) -> Region | str | None:
        out = op.outputs[0]
        if out.is_dynamic or out.quantization is not None:
            return "the rank-5 tensor is quantized or has a dynamic shape"
        tensors, movers, unpacks, why = _region(out)
        if why:
            return why
        if not any(ctx.rejects(o) for o in (op, *movers, *unpacks)):
            return "the profile takes the rank-5 ops"
        for axis in (i for i, d in enumerate(out.shape) if d == 1):
            unit = _track(out, axis, movers)
            if (all(int(u.options.axis) % RANK != unit[id(u.input(0))] for u in unpacks)
                    and all(t.shape[unit[id(t)]] == 1 for t in tensors)):
                return Region(op, [op, *movers, *unpacks], unit, tensors, movers, unpacks)
        return (f"the rank-5 shape {list(out.shape)} has no size-1 axis that every UNPACK keeps and no "
                f"BROADCAST_TO widens")

    def rewrite(self, match: Region, ctx: RewriteContext) -> None:
        graph = match.anchor.graph
        for t in match.tensors:
            build.reshape_tensor(t, _without(t.shape, match.unit[id(t)]))
        reshape = match.anchor
        shape = list(reshape.outputs[0].shape)
        if reshape.input(1) is not None:
            name = f"{reshape.outputs[0].name}/shape4"
            reshape.set_input(1, build.constant(graph, name, np.asarray(shape, np.int32)))
        if reshape.options is not None and reshape.options.newShape is not None:
            reshape.options.newShape = np.asarray(shape, np.int32)
        for mover in match.movers:
            dropped = match.unit[id(mover.input(0))]
            if mover.builtin == B["TRANSPOSE"]:
                perm = [p - (p > dropped) for p in int_values(mover.input(1)).tolist() if p != dropped]
                mover.set_input(1, build.constant(graph, f"{mover.outputs[0].name}/perm4", np.asarray(perm, np.int32)))
            else:  # BROADCAST_TO: the target without the axis
                target = _without(int_values(mover.input(1)).tolist(), dropped)
                mover.set_input(1, build.constant(graph, f"{mover.outputs[0].name}/shape4",
                                                  np.asarray(target, mover.input(1).data().dtype)))
        for up in match.unpacks:
            _unpack_at_rank_3(up, match.unit[id(up.input(0))])


def _region(start: Tensor) -> tuple[list[Tensor], list[Op], list[Op], str | None]:
    """The rank-5 tensors from `start` through TRANSPOSEs and BROADCAST_TOs, those ops and the
    UNPACKs reading them, or why the region has a reader that needs the rank-5 shape."""
    tensors, movers, unpacks = [], [], []
    stack = [start]
    while stack:
        t = stack.pop()
        tensors.append(t)
        if t.graph.is_graph_output(t):
            return [], [], [], f"{t.name!r} (rank 5) is a model output"
        for c in t.consumers:
            if (c.builtin in (B["TRANSPOSE"], B["BROADCAST_TO"]) and c.input(0) is t
                    and int_values(c.input(1)) is not None and c.outputs[0].rank == RANK):
                movers.append(c)
                stack.append(c.outputs[0])
            elif c.builtin == B["UNPACK"] and c.options is not None:
                unpacks.append(c)
            elif not (c.builtin == B["RESHAPE"] and c.input(0) is t and c.outputs[0].rank < RANK):
                return [], [], [], f"{describe(c)} reads the rank-5 tensor {t.name!r}"
    return tensors, movers, unpacks, None


def _track(start: Tensor, axis: int, movers: list[Op]) -> dict[int, int]:
    """Where the dropped axis sits in each region tensor (by id): a TRANSPOSE moves it, a
    BROADCAST_TO keeps it."""
    unit = {id(start): axis}
    for op in movers:  # in region order: an op's input is placed before its output
        at = unit[id(op.input(0))]
        unit[id(op.outputs[0])] = int_values(op.input(1)).tolist().index(at) if op.builtin == B["TRANSPOSE"] else at
    return unit


def _without(shape, axis: int) -> list[int]:
    return [d for i, d in enumerate(shape) if i != axis]


def _unpack_at_rank_3(up: Op, dropped: int) -> None:
    """UNPACK the rank-4 input along the same data axis; each rank-3 slice is reshaped back to
    the rank-4 output it replaces."""
    graph = up.graph
    axis = int(up.options.axis) % RANK
    up.options.axis = axis - (axis > dropped)
    at = graph.op_index(up) + 1
    for i, out in enumerate(list(up.outputs)):
        slice3 = build.tensor(graph, f"{out.name}/rank3", _without(out.shape, dropped - (dropped > axis)), out.dtype)
        up.set_output(i, slice3)
        opts = fb.ReshapeOptionsT()
        opts.newShape = np.asarray(out.shape, np.int32)
        shape = build.constant(graph, f"{out.name}/shape", np.asarray(out.shape, np.int32))
        graph.insert_op(at + i, build.operator(graph, "RESHAPE", [slice3, shape], [out], opts))
