"""The runner table (gpucompat/runners/): each runner, looked up by name, runs a model built in
code and gives what numpy computes for it, within the tolerance a fix's proof holds it to; the
executor's recording hook names the op a fault is in; `verify --runner` and `fix --verify-on`
take their choices from the table, and the old `verify --backend` spelling still works, with a
one-line note on stderr."""

import json

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from cli import gpucompat
from gpucompat import ir
from gpucompat.runners import RUNNERS, Job, NotRun
from gpucompat.verification.placements import placements_by_subgraph
from irbuild import IRModel
from vulkan import without_device

SHAPE = (1, 4, 4, 8)
BIAS = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
SCALE = np.float32(3.0)


def _add_mul() -> bytes:
    """y = (x + BIAS) * SCALE, channels last: two elementwise ops every runner takes."""
    m = IRModel()
    x = m.input("x", SHAPE)
    added = m.op("ADD", [x, m.const("bias", BIAS)], SHAPE, options=fb.AddOptionsT())
    m.output(m.op("MUL", [added, m.const("scale", np.full(1, SCALE))], SHAPE, options=fb.MulOptionsT()))
    return m.bytes()


def _job(data: bytes, feeds: list[np.ndarray], runner) -> Job:
    model = ir.from_bytes(data)
    where = placements_by_subgraph(model, "gpu-current") if runner.placed else {}
    return Job(model, data, where, [feeds], cache_dir="")


def _feeds() -> list[np.ndarray]:
    return [np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)]


def _runs_as_numpy(name: str) -> None:
    runner = RUNNERS[name]
    data, feeds = _add_mul(), _feeds()
    try:
        opened = runner.open(_job(data, feeds, runner))
    except NotRun as e:
        if "no Vulkan device" not in str(e):
            raise
        without_device(str(e))
    got = opened.run(feeds)
    want = (feeds[0] + BIAS) * SCALE
    assert len(got) == 1 and got[0].shape == SHAPE and opened.device
    assert not runner.tolerance({"equivalent"}).failing(got[0], want).any(), np.abs(got[0] - want).max()


def test_the_reference_interpreter_from_the_table():
    _runs_as_numpy("reference")


@pytest.mark.opencl
def test_the_opencl_executor_from_the_table():
    _runs_as_numpy("opencl")


def test_litert_gpu_from_the_table():
    _runs_as_numpy("litert-gpu")


@pytest.mark.opencl
def test_the_executor_recording_hook_names_the_op_a_fault_is_in(monkeypatch):
    # Test-only fault: the executor's ADD subtracts; MUL after it is right but reads the wrong sum.
    from gpucompat.opencl.ops import elementwise
    from gpucompat.verification.tolerance import default

    monkeypatch.setitem(elementwise.BINARY, "ADD", elementwise.BINARY["SUB"])
    runner, data, feeds = RUNNERS["opencl"], _add_mul(), _feeds()
    job = _job(data, feeds, runner)
    opened = runner.open(job)
    found = runner.localize(job, opened, data, feeds, default("fp32"))
    assert found["op"] == "ADD" and found["index"] == 0 and found["placement"] == "gpu"
    assert found["max_abs_error"] == pytest.approx(2 * np.abs(BIAS).max(), rel=1e-5)


@pytest.fixture(scope="module")
def add_mul_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("runners") / "add_mul.tflite"
    path.write_bytes(_add_mul())
    return str(path)


@pytest.mark.opencl
def test_the_old_backend_spelling_still_picks_the_runner_with_a_note(add_mul_path):
    new = gpucompat("verify", add_mul_path, "--runner", "opencl", "--runs", "2", "--cache-dir", "", "--format", "json")
    old = gpucompat("verify", add_mul_path, "--backend", "opencl", "--runs", "2", "--cache-dir", "", "--format", "json")
    assert new.returncode == old.returncode == 0, old.stderr
    assert "deprecated" not in new.stderr
    notes = [line for line in old.stderr.splitlines() if "deprecated" in line]
    assert len(notes) == 1 and "--runner" in notes[0]
    a, b = json.loads(new.stdout), json.loads(old.stdout)
    assert a["device"] == b["device"] and a["runs"] == b["runs"] == 2 and a["passed"] and b["passed"]


@pytest.mark.opencl
def test_the_old_key_in_the_config_file_still_picks_the_runner_with_a_note(add_mul_path, tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.gpucompat.verify]\nbackend = "opencl"\n')
    r = gpucompat("verify", add_mul_path, "--config", str(config), "--runs", "1", "--cache-dir", "", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["passed"], r.stderr
    assert len([line for line in r.stderr.splitlines() if "deprecated" in line]) == 1


def test_an_unknown_runner_is_refused_naming_the_table(add_mul_path, tmp_path):
    r = gpucompat("verify", add_mul_path, "--runner", "vulkan")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--runner must be one of opencl, litert-gpu" in r.stderr
    r = gpucompat("fix", add_mul_path, "-o", str(tmp_path / "out.tflite"), "--verify-on", "opencl")
    assert r.returncode == 2 and "--verify-on must be one of litert-gpu" in r.stderr
    assert not (tmp_path / "out.tflite").exists()
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.gpucompat.verify]\nrunner = "vulkan"\n')
    r = gpucompat("verify", add_mul_path, "--config", str(config))
    assert r.returncode == 2 and "runner" in r.stderr and "opencl, litert-gpu" in r.stderr
