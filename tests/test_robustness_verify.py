"""Regression tests of `gpucompat verify` and the OpenCL executor from the fuzz campaign (seed 0),
each with its minimised model built in code (docs/robustness.md). Verify runs in a fresh process:
OpenCL refuses to run in a process forked from one that used it."""

import os
import sys

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from cli import gpucompat
from gpucompat.opencl.device import describe
from gpucompat.opencl.fusion import MAX_LINKS, groups

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz.seeds import record_of, single_graph  # noqa: E402


def _verify(tmp_path, data: bytes):
    p = tmp_path / "m.tflite"
    p.write_bytes(data)
    return str(p), gpucompat("verify", str(p), "--runs", "1", "--cache-dir", "")


def _one_error_line(r, *words: str) -> str:
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2 and len(lines) == 1, (r.returncode, r.stderr)
    assert "internal error" not in lines[0] and all(w in lines[0] for w in words), lines[0]
    return lines[0]


def _abs_pair(loop: str) -> bytes:
    """x -> ABS -> a -> ABS -> y; with `loop`, the first ABS reads `y`, written by the later op (a
    cycle in the plan) — and the second reads its own output when `loop` is "self"."""
    b, g = single_graph()
    x, a, y = g.tensor("x", (1, 2, 2, 4)), g.tensor("a", (1, 2, 2, 4)), g.tensor("y", (1, 2, 2, 4))
    g.op("ABS", [y if loop == "later" else x], [a])
    g.op("ABS", [y if loop == "self" else a], [y])
    g.io([x], [y])
    return b.finish()


@pytest.mark.parametrize("loop, where", [("self", "produced by itself"), ("later", "produced by the later op#1")])
def test_invalid_execution_order_is_refused_before_anything_runs(tmp_path, loop, where):
    """Cases 1723 and 3671 (an op reading its own output: the reference interpreter's RuntimeError
    "Input tensor 7 lacks data") and 2405 (an op reading a later op's output: SIGSEGV)."""
    path, r = _verify(tmp_path, _abs_pair(loop))
    _one_error_line(r, path, "execution order is invalid", where)


@pytest.mark.opencl
def test_an_output_retyped_to_float64_fails_without_warnings(tmp_path):
    """seed 31337 case 724: a RESHAPE whose output is declared FLOAT64 makes the reference read
    values far past fp32's range; reading them as fp32 and the spread of infinite errors printed
    numpy RuntimeWarnings. The verdict is a plain failure, with nothing else on stderr."""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 4, 4, 4)), g.tensor("y", (1, 4, 4, 4), dtype=fb.TensorType.FLOAT64)
    t = g.tensor("t", (1, 4, 4, 4))
    g.op("TANH", [x], [t])
    g.op("RESHAPE", [t, g.const("shape", np.array([1, 4, 4, 4], np.int32))], [y])
    g.io([x], [y])
    _, r = _verify(tmp_path, b.finish())
    assert r.returncode in (0, 1) and "Warning" not in r.stderr and "internal error" not in r.stderr, r.stderr


@pytest.mark.opencl
def test_zero_element_tensor_is_one_line(tmp_path):
    """Case 2430: a tensor without elements; OpenCL has no empty buffers, and pyopencl's LogicError
    (INVALID_BUFFER_SIZE) was an internal error. (The case's conv output declared (1, 4, 4, 0) is
    prepared by the runtime as (1, 4, 4, 2) and now runs on that shape, as the delegate would; an
    input declared without elements stays without them.)"""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 4, 4, 0)), g.tensor("y", (1, 4, 4, 0))
    g.op("ABS", [x], [y], None)
    g.io([x], [y])
    path, r = _verify(tmp_path, b.finish())
    _one_error_line(r, path, "tensor#0 'x' has no elements")


@pytest.mark.opencl
def test_a_declared_shape_the_runtime_prepares_differently_runs_on_the_prepared_one(tmp_path):
    """The conv's output is declared (1, 4, 4, 0); its filter has 2 output channels, so the runtime
    prepares (1, 4, 4, 2), and the executor runs on that shape like the delegate (shapes.py)."""
    b, g = single_graph()
    x = g.tensor("x", (1, 4, 4, 2))
    w, bias = g.const("w", np.ones((2, 1, 1, 2), np.float32)), g.const("b", np.zeros(2, np.float32))
    y = g.tensor("y", (1, 4, 4, 0))
    g.op("CONV_2D", [x, w, bias], [y], record_of(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1,
                                               dilationWFactor=1, dilationHFactor=1))
    g.io([x], [y])
    _, r = _verify(tmp_path, b.finish())
    assert r.returncode == 0 and "PASSED" in r.stdout, (r.stdout, r.stderr)


@pytest.mark.opencl
def test_cumsum_without_its_options_runs_with_zero_params(tmp_path):
    """Case 5019: CUMSUM without its options table crashed the lowering (AttributeError on
    `exclusive`); the runtime parses it into zero-initialised params (inclusive, forward), and the
    executor's result must match the reference interpreter's."""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 2, 2, 8)), g.tensor("y", (1, 2, 2, 8))
    g.op("CUMSUM", [x, g.const("axis", np.array(3, np.int32))], [y])
    g.io([x], [y])
    _, r = _verify(tmp_path, b.finish())
    assert r.returncode == 0 and "PASSED" in r.stdout, (r.returncode, r.stdout, r.stderr)


@pytest.mark.opencl
def test_output_name_that_is_not_utf8(tmp_path):
    """Case 1993: the reference interpreter's Python API decodes names strictly
    (UnicodeDecodeError); the run goes on, and the name shows escaped, never as a raw newline or
    as rich markup."""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 2, 2, 4)), g.tensor("y", (1, 2, 2, 4))
    g.rec.tensors[y].name = b"\xfc\xe6y\n[red]z"
    g.op("ABS", [x], [y])
    g.io([x], [y])
    _, r = _verify(tmp_path, b.finish())
    assert r.returncode == 0 and "PASSED" in r.stdout, (r.returncode, r.stdout, r.stderr)
    line = next(line for line in r.stdout.splitlines() if "OutputDiff[0]" in line)
    assert "\ufffd\ufffdy\\n[red]z:" in line


@pytest.mark.opencl
def test_a_chain_longer_than_a_kernel_takes_runs(tmp_path):
    """Cases 4883 and 8811: a chain of thousands of elementwise ops fused into one kernel nested
    its value past the compiler's 256 brackets (7 lines of build log, exit 2). 300 ADDs: above
    what one kernel compiles (2 brackets a link), split into kernels of MAX_LINKS links."""
    b, g = single_graph()
    v = x = g.tensor("x", (1, 2, 2, 4))
    one = g.const("one", np.full((4,), 0.01, np.float32))
    for i in range(300):
        nxt = g.tensor(f"v{i}", (1, 2, 2, 4))
        g.op("ADD", [v, one], [nxt], record_of(fb.AddOptionsT))
        v = nxt
    g.io([x], [v])
    _, r = _verify(tmp_path, b.finish())
    assert r.returncode == 0 and "PASSED" in r.stdout and "300/300 ops on the GPU" in r.stdout, (r.stdout, r.stderr)


class _Op:
    """Just what fusion.groups reads of an op: a chain link with one output read by the next."""

    def __init__(self, previous):
        self.outputs = [_Tensor(self)]
        self.inputs = [previous.outputs[0]] if previous else []
        self.present_inputs = self.inputs
        if previous:
            previous.outputs[0].consumers.append(self)


class _Tensor:
    def __init__(self, producer):
        self.producer, self.consumers, self.shape = producer, [], (1, 2, 2, 4)


def test_fused_runs_are_capped():
    """A chain of 200 linkable ops becomes runs of one producer and at most MAX_LINKS linked ops,
    covering every op once, in order."""
    ops = []
    for _ in range(200):
        ops.append(_Op(ops[-1] if ops else None))
    runs = groups(ops, {id(ops[-1].outputs[0])}, lambda op: True, lambda op: True)
    assert [len(r) for r in runs] == [MAX_LINKS + 1] * (200 // (MAX_LINKS + 1)) + [200 % (MAX_LINKS + 1)]
    assert [op for r in runs for op in r] == ops


def test_build_failure_is_one_line():
    """Cases 4883 and 8811: the build log (several lines, a temporary file's path) ends as one line
    with the compiler's message."""
    log = ("clBuildProgram failed: BUILD_PROGRAM_FAILURE - clBuildProgram failed: BUILD_PROGRAM_FAILURE\n\n"
           "Build on <pyopencl.Device 'pthread'>:\n\n"
           "error: /root/.cache/pocl/kcache/tempfile_5dj7Kf.cl:168:5 <Spelling=/root/x.cl:2:1551>: "
           "bracket nesting level exceeded maximum of 256\nDevice pthread failed to build the program\n")
    text = str(describe(RuntimeError(log), "building opencl/conv.cl"))
    assert text == ("building opencl/conv.cl: the OpenCL compiler rejected the kernel: "
                    "bracket nesting level exceeded maximum of 256")
