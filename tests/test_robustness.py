"""Regression tests from the fuzz campaign (each with its minimised model built in code), resource
bounds, and safe writes under a full disk (docs/robustness.md)."""

import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.errors import ModelError

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz import runner, seeds  # noqa: E402
from fuzz.seeds import record_of, single_graph  # noqa: E402


def _conv_model(inputs: list[int] | None = None, outputs: list[int] | None = None, bias_data: bool = True) -> bytes:
    """x -> CONV_2D(w, b) -> y, with the operand lists overridable (indices: x 0, w 1, b 2, y 3)."""
    b, g = single_graph()
    x = g.tensor("x", (1, 4, 4, 2))
    w = g.const("w", np.ones((2, 1, 1, 2), np.float32))
    bias = g.const("b", np.zeros(2, np.float32)) if bias_data else g.tensor("b", (2,))
    y = g.tensor("y", (1, 4, 4, 2))
    g.op("CONV_2D", inputs if inputs is not None else [x, w, bias], outputs if outputs is not None else [y],
         record_of(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1, dilationWFactor=1,
                  dilationHFactor=1))
    g.io([x], [y])
    return b.finish()


def _run(*argv: str, **limits) -> runner.Outcome:
    return runner.run_one(list(argv), timeout_s=60, **limits)


def _one_error_line(outcome: runner.Outcome, *words: str) -> str:
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    assert outcome.exit_code == 2 and len(lines) == 1, outcome
    assert "internal error" not in lines[0] and all(w in lines[0] for w in words), lines[0]
    return lines[0]


# ------------------------------------------------------------ campaign crashes, minimised

@pytest.mark.parametrize("profile", ["gpu-current", "litert-mldrift"])
def test_op_without_outputs_is_refused(tmp_path, profile):
    """fuzz seed 0 cases 628 and 1029: a CONV_2D with an empty output list crashed the channel
    padding analysis under litert-mldrift (IndexError)."""
    p = tmp_path / "m.tflite"
    p.write_bytes(_conv_model(outputs=[]))
    _one_error_line(_run("check", str(p), "--profile", profile), str(p), "operator 0 (CONV_2D) has no outputs")


def test_tensor_nothing_writes_is_refused(tmp_path):
    """fuzz seed 0 case 277: a bias moved to the empty buffer is read by FULLY_CONNECTED but has no
    data, no producer and is not an input; verify's executor failed on it with a KeyError."""
    with pytest.raises(ModelError, match="reads tensor 2 'b', which nothing writes"):
        ir.from_bytes(_conv_model(bias_data=False))


def test_missing_filter_is_refused():
    with pytest.raises(ModelError, match=r"operator 0 \(CONV_2D\) lacks input 1, which its kernel requires"):
        ir.from_bytes(_conv_model(inputs=[0, -1, 2]))


def test_empty_operand_without_data_still_loads():
    """The guard must not refuse what the converter writes: the shape operand of a reshape to a
    scalar has zero elements and no data."""
    b, g = single_graph()
    x, shape, y = g.tensor("x", (1,)), g.tensor("shape", (0,), fb.TensorType.INT32), g.tensor("y", ())
    g.op("RESHAPE", [x, shape], [y])
    g.io([x], [y])
    data = b.finish()
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_content=data)  # the reference runtime runs it
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], np.array([3.0], np.float32))
    interpreter.invoke()
    assert interpreter.get_tensor(interpreter.get_output_details()[0]["index"]) == 3.0
    assert [op.name for op in ir.from_bytes(data).graphs[0].ops] == ["RESHAPE"]


@pytest.mark.opencl
def test_declared_output_shape_the_reference_does_not_compute(tmp_path):
    """fuzz seed 0 case 916: a MEAN over H and W whose options lost keep_dims still declares
    [1,1,1,4]; the reference interpreter computes [1,4], and verify's comparison raised ValueError
    (internal error). It now names the output and both shapes in one line."""
    b, g = single_graph()
    x = g.tensor("x", (1, 2, 2, 4))
    axes = g.const("axes", np.array([1, 2], np.int32))
    y = g.tensor("mean", (1, 1, 1, 4))
    g.op("MEAN", [x, axes], [y], record_of(fb.ReducerOptionsT, keepDims=False))
    g.io([x], [y])
    p = tmp_path / "m.tflite"
    p.write_bytes(b.finish())
    # A fresh process, not the forked runner: a fork after OpenCL started in this process can hang.
    r = subprocess.run([sys.executable, "-m", "gpucompat", "verify", str(p), "--runs", "1", "--cache-dir", ""],
                       capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=120)
    outcome = runner.Outcome(exit_code=r.returncode, signal=None, timed_out=False, stdout=r.stdout,
                             stderr=r.stderr, peak_rss_mb=0.0, seconds=0.0)
    _one_error_line(outcome, str(p), "'mean'", "(1, 1, 1, 4)", "(1, 4)")


# ------------------------------------------------------------ resource bounds

def _claims(shape: tuple[int, ...]) -> bytes:
    """x -> ADD(x, x) -> y where both tensors claim `shape` (float32)."""
    b, g = single_graph()
    x, y = g.tensor("x", shape), g.tensor("y", shape)
    g.op("ADD", [x, x], [y], record_of(fb.AddOptionsT))
    g.io([x], [y])
    return b.finish()


@pytest.mark.parametrize("command", [["check"], ["check", "--format", "json"], ["fix", "--dry-run"]])
def test_shapes_claiming_exabytes_cost_nothing(tmp_path, command):
    """A model whose tensors claim 2^62 bytes is judged from its shapes: the command ends normally
    in a 256 MB address-space allowance."""
    p = tmp_path / "huge.tflite"
    p.write_bytes(_claims((1 << 15, 1 << 15, 1 << 15, 1 << 13)))
    outcome = _run(command[0], str(p), *command[1:], memory_cap_mb=256)
    assert outcome.exit_code in (0, 1), outcome
    assert "internal error" not in outcome.stderr and "Traceback" not in outcome.stderr


def test_verify_refuses_a_model_over_its_allocation_cap(tmp_path):
    p = tmp_path / "big.tflite"
    p.write_bytes(_claims((1, 16384, 16384, 4)))  # 4 GiB per tensor
    line = _one_error_line(_run("verify", str(p), "--runs", "1", "--cache-dir", "", memory_cap_mb=1536), str(p))
    assert any(w in line for w in ("cap", "limit", "exceed", "too large")), line


# ------------------------------------------------------------ safe writes

@pytest.mark.parametrize("argv, out", [
    (["report", "{m}", "-o", "{d}/report.html"], "report.html"),
    (["check", "{m}", "--format", "json", "--output", "{d}/check.json"], "check.json"),
    (["fix", "{m}", "-o", "{d}/fixed.tflite", "--no-verify", "--unsafe-fixes"], "fixed.tflite"),
])
def test_full_disk_leaves_no_partial_file(tmp_path, argv, out):
    """With every write capped at 512 bytes (RLIMIT_FSIZE: EFBIG, as on a full disk) the command
    says it could not write, in one line, and leaves neither the output nor a temporary file."""
    model = tmp_path / "model.tflite"
    model.write_bytes(seeds.SEEDS["conv_stack"]())
    args = [a.format(m=model, d=tmp_path) for a in argv]
    outcome = _run(*args, file_size_bytes=512)
    _one_error_line(outcome, "cannot write")
    assert sorted(os.listdir(tmp_path)) == ["model.tflite"]


def test_full_disk_keeps_the_previous_output(tmp_path):
    model, out = tmp_path / "model.tflite", tmp_path / "report.html"
    model.write_bytes(seeds.SEEDS["conv_stack"]())
    out.write_text("previous report")
    _one_error_line(_run("report", str(model), "-o", str(out), file_size_bytes=512), "cannot write")
    assert out.read_text() == "previous report"


# ------------------------------------------------------------ concurrency

@pytest.mark.opencl
def test_two_verify_processes_share_the_program_cache(tmp_path):
    """Two verify runs of one model start together on one empty cache directory: both pass, the
    cache ends with one complete file and no temporary, and a third run starts from it."""
    model = tmp_path / "model.tflite"
    model.write_bytes(seeds.SEEDS["fp16_weights"]())
    cache = tmp_path / "cache"
    argv = [sys.executable, "-m", "gpucompat", "verify", str(model), "--runs", "2", "--cache-dir", str(cache)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=tempfile.gettempdir()) for _ in range(2)]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert all(code == 0 and "PASSED" in out for out, _, code in results), results
    files = [os.path.join(root, f) for root, _, names in os.walk(cache) for f in names]
    assert len(files) == 1 and files[0].endswith("-fp32.bin"), files
    third = subprocess.run(argv, capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=300)
    assert third.returncode == 0 and "PASSED" in third.stdout
    assert [os.path.join(root, f) for root, _, names in os.walk(cache) for f in names] == files

