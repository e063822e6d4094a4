"""prepare's broadcast of operand shapes (the shape rule of ADD, MUL, ... at Prepare) answers as
numpy.broadcast_shapes does, which it replaces for speed: the same result, or a refusal."""

import itertools

import numpy as np

from gpucompat.prepare import broadcast_shapes


def _numpy(shapes):
    try:
        return tuple(map(int, np.broadcast_shapes(*shapes)))
    except ValueError:
        return "refused"


def _ours(shapes):
    try:
        return broadcast_shapes(shapes)
    except ValueError:
        return "refused"


def test_broadcast_agrees_with_numpy_on_every_small_pair_and_triple():
    dims = (0, 1, 2, -1)
    shapes = [s for rank in range(4) for s in itertools.product(dims, repeat=rank)]
    pairs = list(itertools.product(shapes, repeat=2))
    triples = list(itertools.product(shapes[:21], repeat=3))
    for group in [[], *([s] for s in shapes), *pairs, *triples]:
        assert _ours(list(group)) == _numpy(list(group)), group
    assert _ours([(1, 8), (8,)]) == (1, 8)  # the chain's ADD of a constant
    assert _ours([(2, 3), (4, 3)]) == "refused"
