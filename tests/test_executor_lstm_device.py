"""The executor's basic-kernel LSTM against LiteRT's real GPU accelerator (the oracle,
gpucompat/runners/litert_gpu/infer.py `run_on_accelerator`, fp32): the accelerator reads gate k at slice
Z + k * ceil(U / 4) (tasks/lstm.cc), so activ and state are wrong there whenever U % 4 != 0, and
the executor must compute the same wrong numbers. Needs a Vulkan device: skipped without one,
a failure when GPUCOMPAT_REQUIRE_VULKAN is set (as tests/test_fidelity.py)."""


import numpy as np
import pytest

from gpucompat import ir
from gpucompat.confirm.runner import NoDevice
from gpucompat.opencl.device import choose
from gpucompat.opencl.runtime import Runtime
from gpucompat.runners.litert_gpu.infer import run_on_accelerator
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from models_executor_extra import LSTM_BASIC_SHAPES, basic_lstm
from vulkan import without_device

pytestmark = [pytest.mark.fidelity, pytest.mark.opencl]

# (batch, inputs, units) beyond the generated models: units 1 (every gate but the first past the
# end), 5 (the forget gate partly past the end), 6 (the output gate wholly past the end), 8.
MORE_SHAPES = [(1, 2, 1), (2, 3, 5), (1, 4, 6), (1, 3, 8)]
RUNS = 2


@pytest.fixture(scope="module")
def runtime():
    return Runtime(choose(), "fp32")


def on_accelerator(path: str, model: ir.Model, runs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """The accelerator's outputs for every run; skip (or fail under GPUCOMPAT_REQUIRE_VULKAN) without a device."""
    graph = model.graphs[0]
    try:
        return run_on_accelerator(path, runs, [t.index for t in graph.inputs], [t.index for t in graph.outputs]).outputs
    except NoDevice as e:
        without_device(str(e))


@pytest.mark.parametrize("shape", LSTM_BASIC_SHAPES + MORE_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_basic_lstm_matches_the_accelerator_on_all_four_outputs(tmp_path, runtime, shape):
    """|executor - accelerator| <= 1e-5 * max |accelerator| for each output, over two seeded runs."""
    path = tmp_path / "basic_lstm_{}x{}x{}.tflite".format(*shape)
    path.write_bytes(basic_lstm(*shape))
    model = ir.from_bytes(path.read_bytes())
    runs = [seeded_feeds(model.graphs[0], seed) for seed in range(RUNS)]
    device = on_accelerator(str(path), model, runs)
    runner = HybridRunner(model, ["gpu"], runtime)
    bad = []
    for turn, (feeds, want) in enumerate(zip(runs, device)):
        for t, got, w in zip(model.graphs[0].outputs, runner.run(feeds), want):
            error, scale = np.abs(got.astype(np.float64) - w).max(), np.abs(w).max()
            if not error <= 1e-5 * scale:  # NaN fails too
                bad.append(f"run {turn} {t.name}: max error {error:.3g} (max |accelerator| {scale:.3g})")
    assert not bad, "\n".join(bad)
