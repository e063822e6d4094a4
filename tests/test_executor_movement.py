"""Data-movement kernels (opencl/window.cl, opencl/reindex.cl) against the reference interpreter
on the grids of tests/models_movement.py, every op forced onto the executor.

Moving data is exact: fp32 outputs equal the reference bit for bit; in fp16 every element is the
reference's value rounded to half once (the input's upload), and nothing else. (An output that is
a model input as well never reaches the executor: it is handed on as it is.)
"""

import numpy as np
import pytest

import models_movement  # noqa: F401  (registers builders)
from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference

MOVEMENT = {"CONCATENATION", "RESHAPE", "TRANSPOSE", "SLICE", "STRIDED_SLICE", "PAD", "PADV2", "MIRROR_PAD", "TILE",
            "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "GATHER", "SPLIT", "SPLIT_V", "UNPACK", "PACK", "REVERSE_V2"}
GRIDS = {"mv_4d": MOVEMENT, "mv_low_rank": MOVEMENT - {"DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "PADV2"}}


pytestmark = pytest.mark.opencl


@pytest.fixture(scope="module")
def device():
    return choose()


def run_both(models, runtime: Runtime, name: str) -> tuple[ir.Model, list, list]:
    """(model, executor outputs, reference outputs) with every op on the executor."""
    data = models.bytes(name)
    model = ir.from_bytes(data)
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtime)
    feeds = seeded_feeds(model.graphs[0])
    return model, runner.run(feeds), run_reference(reference_interpreter(data, name), feeds)


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_grid_holds_every_movement_op(models, name):
    ops = {op.name for op in ir.from_bytes(models.bytes(name)).graphs[0].ops}
    assert GRIDS[name] <= ops, f"the converter did not emit {sorted(GRIDS[name] - ops)}"


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", sorted(GRIDS))
def test_movement_is_exact(models, device, name, precision):
    runtime = Runtime(device, precision)
    model, got, want = run_both(models, runtime, name)
    storage = runtime.storage.type
    bad = []
    inputs = {id(t) for t in model.graphs[0].inputs}
    for t, g, w in zip(model.graphs[0].outputs, got, want):
        assert g.shape == w.shape, f"{t.name}: shape executor={g.shape} | reference={w.shape}"
        expected = w if id(t) in inputs else w.astype(storage).astype(np.float32)
        if not np.array_equal(g, expected):
            bad.append(f"{t.name} {w.shape}: {np.count_nonzero(g != expected)} of {g.size} elements differ")
    assert not bad, "\n".join(bad)


def test_only_gather_uploads_indices(models, device, monkeypatch):
    """Load time builds no per-element index maps: the one int buffer a data-movement op uploads
    is GATHER's own index vector."""
    runtime = Runtime(device, "fp32")
    uploaded = []
    real = runtime.indices
    monkeypatch.setattr(runtime, "indices", lambda a: uploaded.append(np.asarray(a).size) or real(a))
    model = ir.from_bytes(models.bytes("mv_4d"))
    HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtime)
    gathers = [op for op in model.graphs[0].ops if op.name == "GATHER"]
    assert sorted(uploaded) == sorted(op.inputs[1].data().size for op in gathers)
