"""The dynamic-tensor gate: which op's output becomes dynamic at prepare time. Expected ops are
worked out from the prepare-time rules in gpucompat/dynamic.py's docstring (values known at
prepare: constants, SHAPE, and STRIDED_SLICE/CONCATENATION/GATHER/MUL of known values); the
gated/not-gated split was confirmed with the real accelerator (docs/fidelity.md)."""

import pytest

import models_realworld  # noqa: F401  (registers the builders)
from gpucompat import ir
from gpucompat.dynamic import first_dynamic_tensor


def gated_op(models, name: str, subgraph: int = 0) -> str | None:
    found = first_dynamic_tensor(ir.load(models.path(name)).graphs[subgraph])
    return None if found is None else found[0].name


@pytest.mark.parametrize("name, subgraph, op", [
    ("rw_dynamic_batch", 0, None),  # a -1 batch alone: prepared as stored
    ("rw_dynamic_batch_shape_concat", 0, None),  # the whole SHAPE chain folds at prepare
    ("rw_dynamic_batch_shape_pack", 0, "RESHAPE"),  # PACK does not fold: RESHAPE reads an unknown shape
    ("rw_while_body_dynamic", 2, "WHERE"),  # data-dependent output shape
    ("rw_while_body_dynamic", 0, "WHILE"),  # a body with a dynamic tensor makes the loop output dynamic
    ("rw_while", 0, None),  # body outputs keep the loop inputs' shapes
    ("rw_if", 0, None),  # both branches give [1, 4, 4, 8]
])
def test_first_dynamic_op(models, name, subgraph, op):
    assert gated_op(models, name, subgraph) == op
