"""Ops the delegate profiles accept, on the executor: each one a profile places on the GPU has a
kernel (or is folded at load), except the few listed as gaps; the kernels added for ROUND, ATAN2,
ADD_N, EMBEDDING_LOOKUP, REDUCE_ANY, REDUCE_ALL and ARG_MAX against the reference interpreter."""

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.ir import opcodes
from gpucompat.opencl.device import choose
from gpucompat.opencl.ops.registry import LOWERINGS
from gpucompat.opencl.runtime import Runtime
from gpucompat.rules.support import registry
from test_executor_kernels import compare_all_gpu

# Delegated by litert-mldrift, no kernel here yet: `verify` stops naming the op (DYNAMIC_UPDATE_SLICE:
# an LLM export's KV-cache update, measured delegated on LiteRT 2.3.0). DENSIFY is folded at load
# (verification/constant_folding.py), as the delegate folds it.
GAPS = {"TOPK_V2", "DENSIFY", "DYNAMIC_UPDATE_SLICE"}


@pytest.mark.parametrize("profile", ["gpu-current", "litert-mldrift"])
def test_every_op_a_profile_delegates_has_a_kernel_but_the_listed_gaps(profile):
    names = {code: name for name, code in opcodes.BUILTIN.items()}
    accepted = {names[code] for code in registry.get(profile).ops}
    assert accepted - set(LOWERINGS) <= GAPS


@pytest.mark.opencl
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_the_added_kernels_match_the_reference(models, precision):
    graph = ir.from_bytes(models.bytes("k_mldrift_extras")).graphs[0]
    assert {"ROUND", "ATAN2", "ADD_N", "EMBEDDING_LOOKUP", "REDUCE_ANY", "REDUCE_ALL", "ARG_MAX"} <= {
        op.name for op in graph.ops}
    gen = np.random.default_rng(11)
    x = np.arange(-30, 30, dtype=np.float32).reshape(2, 5, 6) / 8  # x * 4 hits every half: ROUND's ties
    y, z = (gen.standard_normal((2, 5, 6)).astype(np.float32) for _ in range(2))
    ids = gen.integers(0, 100, 7).astype(np.int32)
    by_name = {"serving_default_args_0:0": x, "serving_default_args_1:0": y, "serving_default_args_2:0": z,
               "serving_default_args_3:0": ids}  # the converter's input order is not the arguments'
    compare_all_gpu(models, Runtime(choose(), precision), "k_mldrift_extras", [by_name[t.name] for t in graph.inputs])
