"""`gpucompat verify`: exit codes, the JSON document, tolerances and overrides, localization with
an injected kernel fault, --against, models it cannot run, and the program cache."""

import json
import os
import subprocess
import sys
import tempfile

import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.ir import opcodes
from gpucompat.ir.nodes import OpCode
from gpucompat.opencl.cache import decode
from gpucompat.opencl.ops import elementwise
from gpucompat.opencl.programs import Variant
from gpucompat.verification.hybrid import open_runtime
from gpucompat.verification.session import Settings, verify_model

KEYS = {"schema_version", "model", "signature", "precision", "runs", "inputs", "device", "reference", "test",
        "outputs", "passed", "verdict", "first_divergent_op", "real_gpu"}
OUTPUT_KEYS = {"index", "name", "avg_error", "std_dev", "max_abs_error", "max_ref_abs", "max_rel_error", "tolerance",
               "noise_floor", "error_to_noise", "sensitivity", "task", "within_tolerance", "passed"}


pytestmark = pytest.mark.opencl


def verify_json(*args):
    r = gpucompat("verify", *args, "--format", "json", "--cache-dir", "")
    return r, (json.loads(r.stdout) if r.stdout.strip() else None)


def test_fully_delegated_float_model_passes_with_the_documented_document(models):
    r, doc = verify_json(models.path("conv_relu"), "--runs", "3")
    assert r.returncode == 0, r.stderr
    assert set(doc) == KEYS and doc["schema_version"] == 1 and doc["runs"] == 3 and doc["passed"]
    assert set(doc["reference"]) == {"latency_ms", "model", "noise_floor"}
    assert set(doc["reference"]["latency_ms"]) == {"avg", "std"} and doc["reference"]["model"] == "as stored"
    assert set(doc["test"]) == {"latency_ms", "init_ms"}
    assert [set(o) for o in doc["outputs"]] == [OUTPUT_KEYS]
    out = doc["outputs"][0]
    assert out["max_abs_error"] <= 1e-5 * out["max_ref_abs"]  # the fp32 target
    assert doc["first_divergent_op"] is None


def test_fp16_fails_a_tight_tolerance_and_an_override_rescues_it(models):
    path = models.path("gather_nd_island")
    r, doc = verify_json(path, "--runs", "2", "--precision", "fp16", "--atol", "1e-7", "--rtol", "1e-7")
    assert r.returncode == 1 and not doc["passed"] and doc["outputs"][0]["max_abs_error"] > 1e-7
    r, doc = verify_json(path, "--runs", "2", "--precision", "fp16", "--atol", "1e-7", "--rtol", "1e-7",
                         "--output-tolerance", "0=0.01,0.01")
    assert r.returncode == 0 and doc["passed"]


def test_localize_names_the_op_with_the_injected_fault(models, monkeypatch):
    # Test-only fault: ADD computes a subtraction. In gather_nd_island the plan is
    # CONV_2D, GATHER_ND (CPU), MUL, ADD, TANH (GPU): MUL is still right, ADD is the first wrong op.
    monkeypatch.setitem(elementwise.BINARY, "ADD", elementwise.BINARY["SUB"])
    result = verify_model(models.path("gather_nd_island"), Settings(runs=2, localize=True, cache_dir=""))
    assert not result.passed
    bad = result.first_divergent_op
    assert (bad["index"], bad["op"], bad["placement"]) == (3, "ADD", "gpu")


def test_against_the_original(models):
    r, doc = verify_json(models.path("conv_relu"), "--runs", "2", "--against", models.path("conv_relu"))
    assert r.returncode == 0 and doc["passed"]
    r, _ = verify_json(models.path("conv_relu"), "--runs", "2", "--against", models.path("gather_nd_island"))
    assert r.returncode == 2 and "different input signatures" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_unregistered_custom_op_is_one_line_and_exit_2(models, tmp_path):
    model = ir.load(models.path("conv_relu"))
    op = model.graphs[0].ops[1]
    op.code = OpCode(opcodes.CUSTOM, "MyCustomOp")
    op.fb.builtinOptions, op.fb.builtinOptionsType = None, 0
    path = str(tmp_path / "custom.tflite")
    ir.save(model, path)
    r = gpucompat("verify", path, "--runs", "1", "--cache-dir", "")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "MyCustomOp" in r.stderr


CONV2D = Variant("conv", "conv2d")  # one kernel to compile


def test_program_cache_cold_then_warm(models, tmp_path):
    data = models.bytes("conv_relu")
    settings = Settings(cache_dir=str(tmp_path))
    cold = open_runtime(settings, data)
    cold.compile([CONV2D])
    cold.cache.save()
    assert cold.built == ["conv.conv2d"] and cold.loaded == []
    warm = open_runtime(settings, data)
    warm.compile([CONV2D])
    assert warm.built == [] and warm.loaded == ["conv.conv2d"]
    other = open_runtime(settings, data + b"\0")  # another model fingerprint: its own entry
    other.compile([CONV2D])
    assert other.built == ["conv.conv2d"]


def _warm_cache_file(models, tmp_path) -> str:
    """A cache directory holding conv_relu's compiled conv program; the path of its one file."""
    runtime = open_runtime(Settings(cache_dir=str(tmp_path)), models.bytes("conv_relu"))
    runtime.compile([CONV2D])
    runtime.cache.save()
    return runtime.cache.path


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign", "trailing", "older"])
def test_a_damaged_cache_file_is_a_miss_and_is_rebuilt(models, tmp_path, damage):
    path = _warm_cache_file(models, tmp_path)
    data = open(path, "rb").read()
    damaged = {"truncate": data[:-7], "flip": data[:-5] + bytes([data[-5] ^ 1]) + data[-4:],
               "foreign": b"\x7fELF" + data[4:], "trailing": data + b"\0",
               "older": data.replace(b'"format": 2', b'"format": 1')}[damage]
    assert damaged != data
    with open(path, "wb") as f:
        f.write(damaged)
    runtime = open_runtime(Settings(cache_dir=str(tmp_path)), models.bytes("conv_relu"))
    runtime.compile([CONV2D])
    assert runtime.built == ["conv.conv2d"] and runtime.loaded == []
    runtime.cache.save()
    # Rewritten whole: the same program again (a compiler need not write the same bytes twice:
    # Intel's CPU runtime does not), which the next start loads instead of building.
    assert decode(open(path, "rb").read()).keys() == decode(data).keys()
    warm = open_runtime(Settings(cache_dir=str(tmp_path)), models.bytes("conv_relu"))
    warm.compile([CONV2D])
    assert warm.loaded == ["conv.conv2d"] and warm.built == []


def test_a_pickle_in_the_cache_directory_is_never_unpickled(models, tmp_path):
    """Whoever can write to --cache-dir must not run code: the old pickle format's loader would
    call os.system here; the data-only format sees a foreign file."""
    import pickle

    path = _warm_cache_file(models, tmp_path)
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return os.system, (f"touch {marker}",)

    with open(path, "wb") as f:
        pickle.dump((1, Payload()), f)
    runtime = open_runtime(Settings(cache_dir=str(tmp_path)), models.bytes("conv_relu"))
    runtime.compile([CONV2D])
    assert runtime.built == ["conv.conv2d"] and not marker.exists()


def test_two_processes_share_one_cache_directory(models, tmp_path):
    cache = str(tmp_path / "cache")
    cmd = [sys.executable, "-m", "gpucompat", "verify", models.path("conv_relu"), "--runs", "1", "--cache-dir", cache]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
             for _ in range(2)]
    for p in procs:
        p.wait(timeout=120)
        assert p.returncode == 0, p.stderr.read().decode()
    files = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs]
    assert len(files) == 1 and files[0].endswith("-fp32.bin")  # no temporary file left behind
    with open(files[0], "rb") as f:
        assert decode(f.read())  # complete: every checksum matches


# ------------------------------------------------------------ allocation cap (gpucompat/verification/budget.py)

def _add_model(shape) -> bytes:
    """x -> ADD(x, x) -> y, float32, built with the flatbuffer object API."""
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from ai_edge_litert import schema_py_generated as fb

    from fuzz.seeds import record_of, single_graph

    b, g = single_graph()
    x, y = g.tensor("x", shape), g.tensor("y", shape)
    g.op("ADD", [x, x], [y], record_of(fb.AddOptionsT))
    g.io([x], [y])
    return b.finish()


@pytest.mark.parametrize("precision, executor", [("fp32", 2 * 2 * 120 * 4), ("fp16", 2 * 2 * 120 * 2)])
def test_allocation_estimate_worked_out_by_hand(precision, executor):
    # [1,3,5,6] float32: 90 elements, 360 bytes per tensor on the reference side (x and y: 720);
    # PHWC4 pads 6 channels to 8: 120 lanes per tensor, two tensors, each also staged on the host.
    from gpucompat.verification import budget

    model = ir.from_bytes(_add_model((1, 3, 5, 6)))
    need = budget.estimate(model, {0: ["gpu"]}, precision)
    assert (need.reference, need.cpu_parts, need.executor) == (720, 0, executor)
    on_cpu = budget.estimate(model, {0: ["cpu"]}, precision)
    assert (on_cpu.reference, on_cpu.cpu_parts, on_cpu.executor) == (720, 720, 0)


def test_sizes_parse_in_binary_units():
    from gpucompat.errors import GpucompatError
    from gpucompat.verification.budget import parse_size

    assert [parse_size(s) for s in ("2G", "512M", "3k", "1.5KiB", "100")] == [2 << 30, 512 << 20, 3072, 1536, 100]
    for bad in ("", "G", "-1M", "nanG", "twoG"):
        with pytest.raises(GpucompatError):
            parse_size(bad)


def test_max_memory_refuses_or_admits_a_model_by_its_estimate(tmp_path):
    path = tmp_path / "add.tflite"
    path.write_bytes(_add_model((1, 3, 5, 6)))  # needs 720 + 1920 = 2640 bytes at fp32
    r = gpucompat("verify", str(path), "--runs", "1", "--cache-dir", "", "--max-memory", "2K")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "2.6 KiB" in r.stderr and "cap of 2.0 KiB" in r.stderr
    r = gpucompat("verify", str(path), "--runs", "1", "--cache-dir", "", "--max-memory", "3K")
    assert r.returncode == 0, r.stderr
