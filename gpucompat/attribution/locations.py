"""An op's locations: the scope paths its output tensor names carry, one per fused piece.

TF's converter names a tensor after its op's location; a fused op joins its pieces' locations
with ";" (`net_1/conv_1/Relu;net_1/conv_1/convolution`). litert-torch ends each location with
";" and a counter (`…/Linear_q;2`, `…/ReLU_1;;…/Conv2d_0;1`). Names of the signature's wiring
(`StatefulPartitionedCall_1:0`, `serving_default_x:0`) say nothing about the op: a model output
is named after the signature, not its layer."""

from __future__ import annotations

import functools
import re

_COUNTER = re.compile(r"\d*")
_OUTPUT_INDEX = re.compile(r":\d+$")
_GRAPH_TENSOR = re.compile(r"^(?:StatefulPartitionedCall|PartitionedCall|serving_default_)[^/]*$")


def op_names(op) -> tuple[str, ...]:
    """The op's output tensor names, each once, in output order."""
    return tuple(dict.fromkeys(t.name for t in op.outputs if t.name))


@functools.lru_cache(maxsize=65536)  # repeated blocks write the same pieces again and again
def locations(names: tuple[str, ...]) -> tuple[str, ...]:
    """Every location the names carry, each once, in the order written (a fused op's own piece,
    the one its outputs are named after, first)."""
    out: dict[str, None] = {}
    for name in names:
        for piece in name.split(";"):
            piece = _OUTPUT_INDEX.sub("", piece.strip())
            if _COUNTER.fullmatch(piece) or _GRAPH_TENSOR.match(piece):
                continue
            out[piece] = None
    return tuple(out)
