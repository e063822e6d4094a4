"""Whole models on the executor: quantized tensors in float with the delegate's quantize-and-
dequantize adjustments, fp16 weights folded at load, and hybrid execution with a CPU island."""

import os
import signal
import struct
import time

import numpy as np
import pytest

import models_kernels  # noqa: F401  (registers builders)
import models_mldrift_ops  # noqa: F401
from cli import gpucompat
from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes, opcodes
from gpucompat.ir.nodes import OpCode
from gpucompat.opencl.device import choose
from gpucompat.opencl.executor import UnsupportedOp
from gpucompat.opencl.runtime import Runtime
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.placements import placements_by_subgraph
from gpucompat.verification.session import Settings, verify_model
from test_executor_kernels import assert_within, compare_all_gpu

pytestmark = pytest.mark.opencl


@pytest.fixture(scope="module")
def runtimes():
    device = choose()
    return {p: Runtime(device, p) for p in ("fp32", "fp16")}


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["k_quant", "k_fp16"])
def test_quantized_and_fp16_weight_models(models, runtimes, name, precision):
    compare_all_gpu(models, runtimes[precision], name)


def test_fp16_dequantize_is_folded_at_load(models, runtimes):
    model = ir.from_bytes(models.bytes("k_fp16"))
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])
    ran = [op.name for seg in runner.segments for op in seg.ops]
    assert "DEQUANTIZE" not in ran and "CONV_2D" in ran


def test_folded_weights_are_not_written_each_run(models, runtimes, monkeypatch):
    # The folded fp16 weights cross into the GPU partition as tensors no op there produces; they
    # are uploaded at load, so a run writes only the model's input (the cost was one host-to-device
    # copy per weight tensor per run: 193 on pose_landmark_full).
    model = ir.from_bytes(models.bytes("k_fp16"))
    runner = HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])
    written, write = [], Runtime.write

    def counted(self, tensor, array):
        written.append(array.shape)
        return write(self, tensor, array)

    monkeypatch.setattr(Runtime, "write", counted)
    runner.run(seeded_feeds(model.graphs[0]))
    assert written == [tuple(t.shape) for t in model.graphs[0].inputs]


def test_hybrid_runs_the_cpu_island_on_the_reference_interpreter(models, runtimes):
    data = models.bytes("gather_nd_island")
    model = ir.from_bytes(data)
    placements = [o.placement for o in check_model(model, registry.get("gpu-current"), Options()).ops]
    runner = HybridRunner(model, placements, runtimes["fp32"])
    kinds = [s.placement for s in runner.segments]
    # GATHER_ND is never delegated, so at least one CPU run sits next to a GPU run.
    assert "cpu" in kinds and "gpu" in kinds
    gather = next(s for s in runner.segments if any(op.name == "GATHER_ND" for op in s.ops))
    assert gather.placement == "cpu"
    feeds = seeded_feeds(model.graphs[0])
    want = run_reference(reference_interpreter(data, "reference"), feeds)
    for got, ref in zip(runner.run(feeds), want):
        assert_within(got, ref, "fp32", "output")


def test_an_op_without_kernel_is_named(models, runtimes):
    model = ir.from_bytes(models.bytes("gather_nd_island"))
    with pytest.raises(UnsupportedOp, match=r"op#1 GATHER_ND: the executor has no kernel"):
        HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtimes["fp32"])


@pytest.mark.parametrize("flag", [True, False])
def test_while_and_if_run_each_called_subgraph_with_its_own_placements(models, runtimes, flag):
    # k_control_flow: main = WHILE (cond 3, body 4), IF (then 2, else 1). The delegate takes
    # neither control-flow op but delegates each subgraph on its own: the body's integer counter
    # ADD (rank 0) stays on the CPU, its MUL, ADD, TANH on float tensors go to the GPU.
    data = models.bytes("k_control_flow")
    model = ir.from_bytes(data)
    where = placements_by_subgraph(model, "gpu-current")
    assert where[4] == ["cpu", "gpu", "gpu", "gpu"] and where[0] == ["cpu", "cpu"]
    runner = HybridRunner(model, where[0], runtimes["fp32"], called=where)
    assert [s.placement for s in runner.segments] == ["control"]
    assert [s.placement for s in runner.called(4).segments] == ["cpu", "gpu"]
    x = seeded_feeds(model.graphs[0])[0]
    feeds = [x, np.array(flag)]
    want = run_reference(reference_interpreter(data, "reference"), feeds)
    for got, ref in zip(runner.run(feeds), want):
        assert_within(got, ref, "fp32", "output")


def test_verify_runs_a_control_flow_model(models):
    result = verify_model(models.path("k_control_flow"), Settings(runs=3, cache_dir=""))
    assert result.passed and result.ops_gpu == 5 and result.ops_total == 9


def as_transpose_conv_bias(op) -> None:
    """Rewrite a builtin TRANSPOSE_CONV (with bias) into MediaPipe's Convolution2DTransposeBias:
    inputs (input, filter, bias), options a raw TfLiteTransposeConvParams (padding 1 SAME / 2 VALID,
    stride_w, stride_h)."""
    o = op.options
    raw = struct.pack("<3i", 1 if o.padding == 0 else 2, o.strideW, o.strideH)
    op.code = OpCode(opcodes.CUSTOM, "Convolution2DTransposeBias")
    op.inputs = [op.inputs[2], op.inputs[1], op.inputs[3]]
    op.fb.builtinOptions, op.fb.builtinOptionsType = None, 0
    op.fb.customOptions = list(raw)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_convolution2d_transpose_bias_matches_the_builtin_twin(models, runtimes, precision):
    # Reference: the reference interpreter on the builtin TRANSPOSE_CONV model (it has no kernel for
    # the custom op); test: the executor on the same model with both ops rewritten to the custom op.
    data = models.bytes("k_tconv_bias")
    model = ir.from_bytes(data)
    for op in model.graphs[0].ops:
        as_transpose_conv_bias(op)
    custom = ir.from_bytes(ir.to_bytes(model))
    assert [op.name for op in custom.graphs[0].ops] == ["Convolution2DTransposeBias"] * 2
    runner = HybridRunner(custom, ["gpu", "gpu"], runtimes[precision])
    feeds = seeded_feeds(custom.graphs[0])
    for got, want in zip(runner.run(feeds), run_reference(reference_interpreter(data, "builtin twin"), feeds)):
        assert_within(got, want, precision, "output")


def test_a_while_loop_that_runs_past_the_cap_is_an_error(models, runtimes, monkeypatch):
    # k_control_flow's WHILE takes 3 turns; with the cap at 2 the warm-up run at load must stop it.
    from gpucompat.verification import control_flow

    monkeypatch.setattr(control_flow, "MAX_TURNS", 2)
    model = ir.from_bytes(models.bytes("k_control_flow"))
    with pytest.raises(GpucompatError, match=r"op#0 WHILE did not stop after 2 turns"):
        HybridRunner(model, ["cpu", "cpu"], runtimes["fp32"])


def pool_pair(models):
    """k_max_pool_same with its MAX_POOL_2D rewritten into MaxPoolingWithArgmax2D (a second, INT32
    output: the indices) followed by MaxUnpooling2D of the two; outputs (values, indices,
    unpooled [1, 7, 8, 6]). Both take a TfLitePoolParams: SAME, stride 2x2, filter 3x3, no
    activation."""
    from ai_edge_litert import schema_py_generated as fb

    model = ir.from_bytes(models.bytes("k_max_pool_same"))
    graph = model.graphs[0]
    pool = graph.ops[0]
    params = list(struct.pack("<6i", 1, 2, 2, 3, 3, 0))

    def tensor(name, shape, dtype):
        t = fb.TensorT()
        t.name, t.shape, t.type, t.buffer = name.encode(), shape, dtype, 0
        return graph.add_tensor(t)

    values = pool.outputs[0]
    indices = tensor("indices", [1, 4, 5, 6], dtypes.INT32)
    unpooled = tensor("unpooled", [1, 7, 8, 6], dtypes.FLOAT32)
    pool.code = OpCode(opcodes.CUSTOM, "MaxPoolingWithArgmax2D")
    pool.fb.builtinOptions, pool.fb.builtinOptionsType, pool.fb.customOptions = None, 0, params
    pool.outputs = [values, indices]
    record = fb.OperatorT()
    record.customOptions = params
    graph.ops.append(ir.Op(record, graph, OpCode(opcodes.CUSTOM, "MaxUnpooling2D"), [values, indices], [unpooled], []))
    graph.outputs = [values, indices, unpooled]
    graph.link()
    return ir.from_bytes(ir.to_bytes(model))


def delegate_pool_argmax(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """3x3 stride 2 SAME max pooling of [1, 7, 9, C] with the delegate's window-local indices
    (ky * 3 + kx, first maximum wins), written from tasks/pooling.cc. SAME padding: 1 row on top
    (total 2 = 3 - 1 - (7 - 1) % 2), 1 column on the left (total 2 = 3 - 1 - (9 - 1) % 2)."""
    values = np.full((1, 4, 5, x.shape[3]), -1e4, np.float32)
    index = np.zeros(values.shape, np.int32)
    for y in range(4):
        for xo in range(5):
            for ky in range(3):
                for kx in range(3):
                    iy, ix = 2 * y - 1 + ky, 2 * xo - 1 + kx
                    if 0 <= iy < 7 and 0 <= ix < 9:
                        v = x[0, iy, ix]
                        larger = v > values[0, y, xo]
                        index[0, y, xo][larger] = ky * 3 + kx
                        values[0, y, xo][larger] = v[larger]
    return values, index


def delegate_unpool(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """MaxUnpooling2D of [1, 4, 5, C] with 3x3 stride 2 SAME, from tasks/max_unpooling.cc and
    operations.cc: SAME totals 1 (H: 3 - 1 - 3 % 2) and 2 (W: 3 - 1 - 4 % 2), appended halves 1
    and 1, output 4 * 2 - 1 = 7 by 5 * 2 - 2 = 8; output (y, x) reads cell ((y + 1) // 2, (x + 1) // 2)
    and keeps the lanes whose index is its tap (y - (sy * 2 - 1)) * 3 + (x - (sx * 2 - 1))."""
    out = np.zeros((1, 7, 8, values.shape[3]), np.float32)
    for y in range(7):
        for x in range(8):
            sy, sx = (y + 1) // 2, (x + 1) // 2
            if sy < 4 and sx < 5:
                tap = (y - (sy * 2 - 1)) * 3 + (x - (sx * 2 - 1))
                out[0, y, x] = np.where(index[0, sy, sx] == tap, values[0, sy, sx], 0.0)
    return out


def test_max_pooling_with_argmax_and_unpooling_follow_the_delegate(models, runtimes):
    model = pool_pair(models)
    assert [op.name for op in model.graphs[0].ops] == ["MaxPoolingWithArgmax2D", "MaxUnpooling2D"]
    runner = HybridRunner(model, ["gpu", "gpu"], runtimes["fp32"])
    x = seeded_feeds(model.graphs[0])[0]
    values, indices, unpooled = runner.run([x])
    builtin = run_reference(reference_interpreter(models.bytes("k_max_pool_same"), "builtin"), [x])[0]
    want_values, want_index = delegate_pool_argmax(x)
    np.testing.assert_allclose(values, builtin, rtol=0, atol=0)  # the values are MAX_POOL_2D's
    np.testing.assert_array_equal(want_values, builtin)  # the hand-written pooling agrees with it
    assert indices.dtype == np.int32
    np.testing.assert_array_equal(indices, want_index)
    np.testing.assert_array_equal(unpooled, delegate_unpool(want_values, want_index))


def test_max_pool_of_values_below_minus_10000_gives_the_delegates_floor(models, runtimes):
    # tasks/pooling.cc starts the maximum at -10000: on the device, a window of smaller values pools
    # to -10000, where the reference interpreter returns the true maximum.
    data = models.bytes("k_max_pool_same")
    model = ir.from_bytes(data)
    x = seeded_feeds(model.graphs[0])[0] - 20000.0
    got = HybridRunner(model, ["gpu"], runtimes["fp32"]).run([x])[0]
    want = run_reference(reference_interpreter(data, "reference"), [x])[0]
    assert np.all(want < -19990) and np.all(got == -10000.0)


def test_a_forked_child_of_an_opencl_process_gets_an_error_not_a_hang(runtimes):
    # `runtimes` has opened the device in this process. A child forked without exec inherits the
    # OpenCL state but not PoCL's worker threads, so its first enqueue would wait forever (the fuzz
    # campaign's forked `verify` case hung that way after executor tests ran in the same process):
    # opening a device there must fail with a clear error instead.
    pid = os.fork()
    if pid == 0:
        try:
            choose()
            os._exit(3)
        except GpucompatError as e:
            os._exit(0 if "forked" in str(e) else 4)
        except BaseException:  # noqa: BLE001 - any other outcome is a failure, reported by the code
            os._exit(5)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def test_a_while_loop_over_a_tensor_of_changing_size_verifies(models):
    # WHERE -> GATHER_ND -> WHILE: the loop variable has as many elements as the input has positive
    # values (declared (1,)); the body's CPU partition is resized to each run's size, as the WHILE
    # kernel resizes its body. It used to fail with "cannot reshape array of size 3 into shape (1,)".
    r = gpucompat("verify", models.path("md_while_main_dynamic"), "--runs", "4", "--cache-dir", "")
    assert r.returncode == 0 and "PASSED" in r.stdout, (r.stdout, r.stderr)
