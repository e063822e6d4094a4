"""What a user sees for the model kinds people ship (tests/models_realworld.py): GPU ops per
subgraph, whether the model is fully delegated or fails as a whole, and the rejected op types.

Expectations are worked out by hand from the rules: for litert-mldrift from the accelerator's
observed behaviour (every row was also checked against the real accelerator, see
docs/fidelity.md), for gpu-current from model_builder.cc
GetOpsToReplace, gpu_compatibility.cc and graph_info.cc."""

import pytest

import models_realworld  # noqa: F401  (registers the builders)
from gpucompat import ir
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options


def summary(models, name: str, profile: str) -> dict:
    """GPU ops per subgraph, rejected op types, and whether the whole model fails."""
    r = check_model(ir.load(models.path(name)), registry.get(profile), Options())
    gpu: dict[int, int] = {}
    for o in r.ops:
        if o.placement == "gpu":
            gpu[o.subgraph] = gpu.get(o.subgraph, 0) + 1
    rejected = {o.op for o in r.ops if not o.verdict.ok}
    return {"gpu": gpu, "full": r.fully_delegated, "rejected": rejected, "fails": r.failure is not None}


# name: (gpu ops per subgraph, fully delegated, rejected op types, whole model fails)
MLDRIFT = {
    # 3 ops, all supported
    "rw_float_cnn": ({0: 3}, True, set(), False),
    # 3 fp16 DEQUANTIZE + 3 supported ops: supported + fp16 = total -> every node (Step E), none rejected
    "rw_fp16_cnn": ({0: 6}, True, set(), False),
    # GPU islands {CONV} (1) and {FULLY_CONNECTED, TANH} (2): the larger; the fp16 DEQUANTIZEs
    # stay on the CPU, not rejected (the delegate reads their fp16 constants itself)
    "rw_fp16_partial": ({0: 2}, False, {"GATHER_ND"}, False),
    # DENSIFY has no parser; FULLY_CONNECTED alone
    "rw_sparse_fc": ({0: 1}, False, {"DENSIFY"}, False),
    # ... and the DEQUANTIZE it feeds is refused too
    "rw_sparse_fp16_fc": ({0: 1}, False, {"DENSIFY", "DEQUANTIZE"}, False),
    # hybrid FULLY_CONNECTED v12: no version cap
    "rw_dynamic_range_fc": ({0: 1}, True, set(), False),
    # QUANTIZE, CONV, CONV, MEAN, DEQUANTIZE
    "rw_int8_cnn": ({0: 5}, True, set(), False),
    "rw_int8_io_cnn": ({0: 3}, True, set(), False),
    # {QUANTIZE, CONV} (2) vs {FULLY_CONNECTED, TANH, DEQUANTIZE} (3): the larger one
    "rw_int8_gather_nd": ({0: 3}, False, {"GATHER_ND"}, False),
    # subgraph 0 WHILE | TANH; cond LESS; body ADD, MUL, ADD: each subgraph on its own
    "rw_while": ({0: 1, 1: 1, 2: 3}, False, {"WHILE"}, False),
    # STRIDED_SLICE (shrink mask) and IF refused, GREATER taken; branches 2 + 2
    "rw_if": ({0: 1, 1: 2, 2: 2}, False, {"IF", "STRIDED_SLICE"}, False),
    # WHERE in the loop body: dynamic tensors -> the model does not compile with the GPU
    "rw_while_body_dynamic": ({}, False, {"WHILE", "WHERE", "GATHER_ND"}, True),
    # a custom op the runtime does not register: the model cannot be loaded
    "rw_custom_op": ({}, False, {"MyCustomOp"}, True),
    # dynamic batch prepared as stored (batch 1): nothing dynamic
    "rw_dynamic_batch": ({0: 3}, True, set(), False),
    # PACK does not fold at prepare: RESHAPE output dynamic -> whole model fails
    "rw_dynamic_batch_shape_pack": ({}, False, {"SHAPE", "STRIDED_SLICE"}, True),
    # folds: RESHAPE static but reads a runtime shape; islands {CONV}, {STRIDED_SLICE, CONCAT}
    "rw_dynamic_batch_shape_concat": ({0: 2}, False, {"SHAPE", "RESHAPE"}, False),
}


@pytest.mark.parametrize("name", sorted(MLDRIFT))
def test_litert_mldrift(models, name):
    gpu, full, rejected, fails = MLDRIFT[name]
    got = summary(models, name, "litert-mldrift")
    assert got["gpu"] == gpu
    assert got["full"] is full
    assert got["fails"] is fails
    assert rejected <= got["rejected"]
    if "DEQUANTIZE" not in rejected:
        assert "DEQUANTIZE" not in got["rejected"]


GPU_CURRENT = {
    "rw_float_cnn": ({0: 3}, True),
    "rw_fp16_cnn": ({0: 6}, True),
    "rw_fp16_partial": ({0: 2}, False),
    # DENSIFY is folded into a constant by the classic delegate (merge_densify)
    "rw_sparse_fc": ({0: 2}, True),
    # FULLY_CONNECTED is capped at version 9
    "rw_dynamic_range_fc": ({}, False),
    "rw_int8_cnn": ({0: 5}, True),
    "rw_int8_gather_nd": ({0: 3}, False),
    # LESS must feed CAST/SELECT; the loop counter ADD is INT32: body keeps MUL, ADD
    "rw_while": ({0: 1, 2: 2}, False),
    # GREATER feeds IF (not CAST/SELECT), STRIDED_SLICE shrinks
    "rw_if": ({1: 2, 2: 2}, False),
    # the WHILE output is dynamic: subgraph 0 is gated, delegation never reaches the others
    "rw_while_body_dynamic": ({}, False),
    # an app may register its custom op: it just stays on the CPU, splitting CONV | MEAN
    "rw_custom_op": ({0: 1}, False),
    "rw_dynamic_batch": ({0: 3}, True),
    "rw_dynamic_batch_shape_pack": ({}, False),
}


@pytest.mark.parametrize("name", sorted(GPU_CURRENT))
def test_gpu_current(models, name):
    gpu, full = GPU_CURRENT[name]
    got = summary(models, name, "gpu-current")
    assert (got["gpu"], got["full"], got["fails"]) == (gpu, full, False)


def test_gate_in_a_later_subgraph_keeps_earlier_delegation_in_the_interpreter(models):
    """Classic interpreter: the loop over subgraphs stops at a gated one (ApplicationError), so
    subgraph 0 keeps its kernels; LiteRT fails the whole model instead."""
    model = ir.load(models.path("rw_while"))
    body = model.graphs[2]
    from gpucompat.dynamic import first_dynamic_tensor
    assert first_dynamic_tensor(body) is None
    r = check_model(model, registry.get("gpu-current"), Options())
    r.subgraphs[1].gate = "forced"
    from gpucompat.placement import _apply_failures
    _apply_failures(model, r)
    assert [o.placement for o in r.ops if o.subgraph == 0] == ["cpu", "gpu"]
    assert all(o.placement == "cpu" for o in r.ops if o.subgraph == 2) and r.subgraphs[2].blocked
