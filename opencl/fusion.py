"""Elementwise fusion, as the delegate merges nodes (common/gpu_model.cc MergeNodes /
MergeElementwiseNodes; research notes §5.8): a node whose one output is not a graph output and is
read by exactly one linkable (elementwise) node, as that node's first input, takes the node into
its own kernel; the merged node may then take the next one, so whole chains fuse.

Here a "graph output" is any tensor the partition hands on (a model output, or one read outside
the partition). A linked node's other operands must exist when the producer runs: constants,
partition inputs, or outputs of ops earlier than the producer (the delegate checks the linked
node's inputs are ready). The fused kernel stores straight into the chain's last tensor; the
intermediate tensors are never computed.

`epilogue` turns the linked ops into the EPILOGUE_PARAMS / EPILOGUE definitions that common.cl's
STORE_CELL applies in the producer's kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gpucompat.ir import Op
from gpucompat.opencl.layout import bhwc


# Ops linked into one kernel at most. The delegate's MergeElementwiseNodes has no count of its
# own, but a kernel is bounded by what the device's compiler accepts: each link nests its
# producer's value two brackets deeper (activate(binary(...))) and OpenCL C compilers stop at 256
# (clang's bracket nesting limit, "bracket nesting level exceeded"); a longer chain continues in
# the next kernel, as a new producer.
MAX_LINKS = 64


def groups(ops: list[Op], handed_on: set[int], producer: Callable[[Op], bool],
           linkable: Callable[[Op], bool]) -> list[list[Op]]:
    """The partition's ops (execution order) as runs to execute: [producer, linked ops...] where
    fusion applies, [op] elsewhere. `handed_on` holds id() of the partition's output tensors."""
    position = {id(op): i for i, op in enumerate(ops)}
    linked: set[int] = set()
    runs = []
    for op in ops:
        if id(op) in linked:
            continue
        run = [op]
        while producer(op) and len(run) <= MAX_LINKS:
            nxt = _next_link(run[-1], position, position[id(op)], handed_on, linkable)
            if nxt is None:
                break
            run.append(nxt)
            linked.add(id(nxt))
        runs.append(run)
    return runs


def _next_link(last: Op, position: dict[int, int], start: int, handed_on: set[int],
               linkable: Callable[[Op], bool]) -> Op | None:
    if len(last.outputs) != 1:
        return None
    t = last.outputs[0]
    if id(t) in handed_on or len(t.consumers) != 1:
        return None
    c = t.consumers[0]
    if id(c) not in position or not linkable(c) or c.inputs[0] is not t:
        return None
    if len(c.outputs) != 1 or bhwc(c.outputs[0].shape) != bhwc(t.shape):
        return None
    for x in c.present_inputs[1:]:
        if x is t or (x.producer is not None and id(x.producer) in position and position[id(x.producer)] >= start):
            return None
    return c


@dataclass
class Link:
    """One linked op in OpenCL terms: its math on `v` (the running value) at cell (b, s, y, x),
    and the operands it reads (tensor, BHWC dims) if any."""

    math: str
    operand: tuple[object, tuple[int, int, int, int]] | None = None


@dataclass
class Epilogue:
    """The definitions a producer's program is built with, and the extra kernel arguments."""

    source: str
    args: list = field(default_factory=list)


def epilogue(links: list[Link]) -> Epilogue:
    """EPILOGUE_PARAMS / EPILOGUE for a chain: link i with an operand reads it as `link{i}` with
    dims `link{i}_d`, broadcast like the elementwise kernels (read_broadcast)."""
    params, body, args = [], "(v)", []
    for i, link in enumerate(links):
        operand = "(float4)(0.0f)"
        if link.operand is not None:
            params.append(f", __global const store_t* link{i}, int4 link{i}_d")
            operand = f"read_broadcast(link{i}, link{i}_d, b, s, y, x)"
            args.extend(link.operand)
        body = link.math.replace("OPERAND", operand).replace("VALUE", body)
    return Epilogue("\n".join([f"#define EPILOGUE_PARAMS {''.join(params)}",
                               f"#define EPILOGUE(v, b, s, y, x) ({body})"]), args)
