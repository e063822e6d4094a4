"""The executor's LSTM, Resampler and SELECT (v1) kernels against independent references: the
reference interpreter for LSTM (the full kernel, and the basic kernel when its units are a
multiple of 4; other unit counts against the delegate's slice arithmetic, tasks/lstm.cc) and
SELECT, a numpy implementation of TF Addons' resampler definition for the Resampler (the reference
interpreter has no kernel for it). Models are written at the flatbuffer level
(tests/models_executor_extra.py).
"""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.opencl.device import choose
from gpucompat.opencl.executor import Executor
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from models_executor_extra import LSTM_BASIC_SHAPES, LSTM_FULL_VARIANTS, RESAMPLER_SHAPES, SELECT_VARIANTS, FlatModel
from test_executor_kernels import TOLERANCE, assert_within, compare_all_gpu

PRECISIONS = list(TOLERANCE)


pytestmark = pytest.mark.opencl


@pytest.fixture(scope="module")
def runtimes():
    device = choose()
    return {p: Runtime(device, p) for p in TOLERANCE}


# ---------------------------------------------------------------------------------------- SELECT
def select_inputs(model: ir.Model, seed: int) -> list[np.ndarray]:
    gen = np.random.default_rng(seed)
    return [gen.random(t.shape) > 0.5 if t.dtype_name == "BOOL" else gen.standard_normal(t.shape).astype(np.float32)
            for t in model.graphs[0].inputs]


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("variant", SELECT_VARIANTS)
def test_select_matches_reference(models, runtimes, variant, precision):
    name = f"x_select_{variant}"
    feeds = select_inputs(ir.from_bytes(models.bytes(name)), seed=3)
    compare_all_gpu(models, runtimes[precision], name, feeds)


def test_select_with_a_row_condition_picks_whole_rows(models, runtimes):
    """By hand: cond [3] over [3, 4, 6] operands takes row i from `then` where cond[i]."""
    model = ir.from_bytes(models.bytes("x_select_rows"))
    cond = np.array([True, False, True])
    then, other = np.full((3, 4, 6), 1.0, np.float32), np.full((3, 4, 6), -1.0, np.float32)
    got = HybridRunner(model, ["gpu"], runtimes["fp32"]).run([cond, then, other])[0]
    assert (got[0] == 1).all() and (got[1] == -1).all() and (got[2] == 1).all()


# ------------------------------------------------------------------------------------------ LSTM
BASIC_ALIGNED = [s for s in LSTM_BASIC_SHAPES if s[2] % 4 == 0]
BASIC_UNALIGNED = [s for s in LSTM_BASIC_SHAPES if s[2] % 4 != 0]


def basic_name(shape: tuple[int, int, int]) -> str:
    return "x_lstm_basic_{}x{}x{}".format(*shape)


def delegate_lstm_task(activ_temp: np.ndarray, prev_state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(activ, state) as the delegate's LSTM task computes them (tasks/lstm.cc), transcribed slice
    by slice: work-item Z of S = ceil(U / 4) reads float4 slice Z + k * S of activ_temp's U slices
    for gate k (input, cell, forget, output); slices past the end read as 0 (what LiteRT's GPU
    accelerator does: tests/test_executor_lstm_device.py)."""
    batch, units = prev_state.shape
    n_slices = -(-units // 4)
    gate_slices = activ_temp.astype(np.float64).reshape(batch, units, 4)
    state_slices = np.zeros((batch, n_slices * 4))
    state_slices[:, :units] = prev_state
    state_slices = state_slices.reshape(batch, n_slices, 4)
    activ, state = np.zeros_like(state_slices), np.zeros_like(state_slices)
    for z in range(n_slices):
        r = [gate_slices[:, s] if s < units else np.zeros((batch, 4)) for s in (z + k * n_slices for k in range(4))]
        sigmoid = [1 / (1 + np.exp(-v)) for v in r]
        state[:, z] = sigmoid[0] * np.tanh(r[1]) + sigmoid[2] * state_slices[:, z]
        activ[:, z] = sigmoid[3] * np.tanh(state[:, z])
    return activ.reshape(batch, -1)[:, :units], state.reshape(batch, -1)[:, :units]


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("shape", BASIC_ALIGNED, ids=lambda s: "x".join(map(str, s)))
def test_basic_lstm_with_units_a_multiple_of_4_matches_reference(models, runtimes, shape, precision):
    compare_all_gpu(models, runtimes[precision], basic_name(shape))


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("shape", BASIC_UNALIGNED, ids=lambda s: "x".join(map(str, s)))
def test_basic_lstm_with_other_unit_counts_reads_gates_at_the_delegates_slices(models, runtimes, shape, precision):
    """concat_temp and activ_temp as the reference interpreter computes them; activ and state as
    the delegate's task computes them from that activ_temp, which is not what the reference gets."""
    data = models.bytes(basic_name(shape))
    model = ir.from_bytes(data)
    feeds = seeded_feeds(model.graphs[0])
    got = HybridRunner(model, ["gpu"], runtimes[precision]).run(feeds)
    ref = run_reference(reference_interpreter(data, basic_name(shape)), feeds)
    want = [*delegate_lstm_task(ref[3], feeds[2]), ref[2], ref[3]]
    for t, g, w in zip(model.graphs[0].outputs, got, want):
        assert_within(g, w, precision, t.name)
    assert np.abs(want[0] - ref[0]).max() > 0.05, "the delegate's slice offsets should change activ here"


def run_full_lstm_against_reference(data: bytes, runtime: Runtime, runs: int = 3) -> None:
    """Invoke the executor and the reference interpreter `runs` times on the same inputs: the
    states are variable tensors, so every run after the first starts from the states the
    previous run left."""
    model = ir.from_bytes(data)
    graph = model.graphs[0]
    ex = Executor(runtime, graph.ops, list(graph.inputs), list(graph.outputs))
    it = reference_interpreter(data, "full LSTM")
    gen = np.random.default_rng(5)
    for turn in range(runs):
        x = gen.standard_normal(graph.inputs[0].shape).astype(np.float32)
        want = run_reference(it, [x])[0]
        got = ex.run({id(graph.inputs[0]): x})[id(graph.outputs[0])]
        assert_within(got, want, runtime.precision, f"run {turn}")


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("variant", [v for v in LSTM_FULL_VARIANTS if v != "batch2"])
def test_full_lstm_matches_reference_and_carries_its_state(models, runtimes, variant, precision):
    """Every variant, layer normalization (plain, CIFG, projection) included."""
    run_full_lstm_against_reference(models.bytes(f"x_lstm_full_{variant}"), runtimes[precision])


# ------------------------------------------------------------------------------------- Resampler
def tfa_resampler(source: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """tfa.image.resampler by its definition (tensorflow_addons/custom_ops/image/cc/kernels/
    resampler_ops.cc): output (b, y, x) is the bilinear interpolation of source[b] at
    (warp[b, y, x, 0], warp[b, y, x, 1]) = (x, y), pixels outside the image reading zero, and
    zero outright unless -1 < x < W and -1 < y < H."""
    _, h, w, _ = source.shape
    x, y = warp[..., 0].astype(np.float64), warp[..., 1].astype(np.float64)
    x0, y0 = np.floor(x), np.floor(y)
    out = np.zeros(warp.shape[:3] + source.shape[3:])
    batch = np.arange(source.shape[0]).reshape(-1, 1, 1)
    for xi, wx in ((x0, x0 + 1 - x), (x0 + 1, x - x0)):
        for yi, wy in ((y0, y0 + 1 - y), (y0 + 1, y - y0)):
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            pixel = source[batch, np.clip(yi, 0, h - 1).astype(int), np.clip(xi, 0, w - 1).astype(int)]
            out += (np.where(inside, wx * wy, 0.0))[..., None] * pixel
    kept = (x > -1) & (y > -1) & (x < w) & (y < h)
    return np.where(kept[..., None], out, 0.0)


def resampler_inputs(source_shape, warp_shape, seed: int = 0) -> list[np.ndarray]:
    """A source N(0, 1) and warp points over the source and a pixel and a half around it, some on
    exact pixel positions and on the borders."""
    gen = np.random.default_rng(seed)
    _, h, w, _ = source_shape
    warp = gen.uniform(-1.5, 1.5, warp_shape) + np.array([w, h] + [0] * (warp_shape[-1] - 2)) * gen.random(warp_shape)
    warp.reshape(-1, warp_shape[-1])[:4, :2] = [[0, 0], [w - 1, h - 1], [-1, 2], [w - 1, -0.5]]
    return [gen.standard_normal(source_shape).astype(np.float32), warp.astype(np.float32)]


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("shapes", RESAMPLER_SHAPES, ids=lambda s: "_".join("x".join(map(str, v)) for v in s))
def test_resampler_matches_the_tfa_definition(models, runtimes, shapes, precision):
    name = "x_resampler_" + "_".join("x".join(map(str, v)) for v in shapes)
    model = ir.from_bytes(models.bytes(name))
    source, warp = resampler_inputs(*shapes)
    got = HybridRunner(model, ["gpu"], runtimes[precision]).run([source, warp])[0]
    assert_within(got, tfa_resampler(source, warp), precision, name)


def test_check_judges_a_resampler_with_one_input_instead_of_crashing(tmp_path):
    """Every check of an op's entry runs; the shape check must not assume the warp exists."""
    m = FlatModel()
    src = m.tensor("source", [1, 4, 4, 3])
    out = m.tensor("out", [1, 4, 4, 3])
    m.op("CUSTOM", [src], [out], custom="Resampler")
    path = tmp_path / "resampler_one_input.tflite"
    path.write_bytes(m.finish([src], [out]))
    r = gpucompat("check", str(path), "--profile", "gpu-current")
    assert "internal error" not in r.stderr
    assert "needs 2 runtime" in r.stdout, r.stdout + r.stderr


# ------------------------------------------------------------------------------------------- CLI
def verify_json(*args):
    r = gpucompat("verify", *args, "--runs", "3", "--format", "json", "--cache-dir", "")
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r, json.loads(r.stdout)


def test_verify_fails_on_a_basic_lstm_only_where_the_device_does(models):
    """Units 4: all four outputs pass. Units 3: activ and state fail, as on LiteRT's GPU
    accelerator (tests/test_executor_lstm_device.py); concat_temp and activ_temp pass."""
    r, doc = verify_json(models.path(basic_name(BASIC_ALIGNED[0])))
    assert r.returncode == 0 and doc["passed"] and len(doc["outputs"]) == 4, r.stdout
    r, doc = verify_json(models.path(basic_name(BASIC_UNALIGNED[0])))
    assert r.returncode == 1 and not doc["passed"], r.stdout
    assert [o["passed"] for o in doc["outputs"]] == [False, False, True, True], r.stdout


def test_verify_passes_on_the_resampler_against_its_builtin_twin(models):
    r, doc = verify_json(models.path("x_resampler_1x5x6x3_1x4x7x2"), "--against", models.path("x_resampler_twin"))
    assert r.returncode == 0 and doc["passed"], r.stdout


@pytest.mark.parametrize("precision", PRECISIONS)
def test_verify_passes_on_a_layer_normalized_lstm_run_whole_on_the_executor(models, precision):
    """The LSTM itself runs on the executor (no CPU island), states carried over the 3 runs."""
    r = gpucompat("verify", models.path("x_lstm_full_layer_norm"), "--runs", "3", "--precision", precision,
                  "--cache-dir", "")
    assert r.returncode == 0 and "PASSED" in r.stdout, r.stdout + r.stderr
    assert "1/1 ops on" in " ".join(r.stdout.split()), r.stdout
