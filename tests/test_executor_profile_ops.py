"""Ops the delegate profiles accept, on the executor: each one a profile places on the GPU has a
kernel (or is folded at load), except the few listed as gaps; the kernels added for ROUND, ATAN2,
ADD_N, EMBEDDING_LOOKUP, REDUCE_ANY, REDUCE_ALL, ARG_MAX and DYNAMIC_UPDATE_SLICE against the
reference interpreter."""

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.ir import dtypes, opcodes
from gpucompat.ir.build import Sketch
from gpucompat.opencl import lowering  # noqa: F401  (imports every lowering into the registry)
from gpucompat.opencl.device import choose
from gpucompat.opencl.ops.registry import LOWERINGS
from gpucompat.opencl.runtime import Runtime
from gpucompat.rules.support import registry
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from test_executor_kernels import assert_within, compare_all_gpu

# Delegated by litert-mldrift, no kernel here yet: `verify` stops naming the op. DENSIFY is folded
# at load (verification/constant_folding.py), as the delegate folds it.
GAPS = {"TOPK_V2", "DENSIFY"}


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


def kv_cache_write() -> bytes:
    """An LLM export's KV-cache write: cache [1, 8, 2, 4] with an update [1, 3, 2, 4] written at a
    runtime start [4] (DYNAMIC_UPDATE_SLICE), then doubled so the write is not a model output alone."""
    s = Sketch()
    cache, update = s.input("cache", (1, 8, 2, 4)), s.input("update", (1, 3, 2, 4))
    start = s.input("start", (4,), dtypes.INT32)
    written = s.op("DYNAMIC_UPDATE_SLICE", [cache, update, start], (1, 8, 2, 4))
    s.output(s.op("ADD", [written, written], (1, 8, 2, 4)))
    return s.to_bytes()


@pytest.mark.opencl
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("start", [[0, 2, 0, 0], [0, 0, 0, 0], [0, 7, 1, 0], [0, -3, 0, 2]])
def test_the_kv_cache_write_matches_the_reference(precision, start):
    """Starts inside, at the edge and past it (clamped so the update fits, as the CPU kernel does)."""
    data = kv_cache_write()
    model = ir.from_bytes(data)
    gen = np.random.default_rng(3)
    feeds = [gen.standard_normal((1, 8, 2, 4)).astype(np.float32), gen.standard_normal((1, 3, 2, 4)).astype(np.float32),
             np.asarray(start, np.int32)]
    want = run_reference(reference_interpreter(data, "kv cache write"), feeds)[0]
    got = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), Runtime(choose(), precision)).run(feeds)[0]
    assert_within(got, want, precision, f"start {start}")
