"""The verification package's input source and reference model, as a user meets them: `--inputs`
sample files for verify and fix (keyed by input name or index, the first axis counting samples,
bad files refused in one line), and hybrid-quantized models compared with a float reference whose
weights are dequantized, which the output says."""

import json

import numpy as np

import models_verdict  # noqa: F401  (registers builders)
from cli import gpucompat
from gpucompat import ir
from gpucompat.verification import inputs
from gpucompat.verification.hybrid import HybridRunner, open_runtime
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.placements import placements, placements_by_subgraph
from gpucompat.verification.reference_model import reference_model
from gpucompat.verification.session import Settings
from gpucompat.verification.tolerance import default


def verify_json(*args):
    r = gpucompat("verify", *args, "--format", "json", "--cache-dir", "")
    return r, (json.loads(r.stdout) if r.stdout.strip() else None)


def samples(models, name: str, count: int, seed: int = 7) -> tuple[str, np.ndarray]:
    graph = ir.from_bytes(models.bytes(name)).graphs[0]
    values = np.stack([run[0] for run in inputs.seeded(inputs.specs(graph), seed, count)])
    return graph.inputs[0].name, values


def test_verify_runs_once_per_sample_keyed_by_name_or_index(models, tmp_path):
    name, values = samples(models, "conv_relu", 3)
    by_name, by_index = tmp_path / "by_name.npz", tmp_path / "by_index.npz"
    np.savez(by_name, **{name: values})
    np.savez(by_index, **{"0": values})
    r, doc = verify_json(models.path("conv_relu"), "--inputs", str(by_name))
    assert r.returncode == 0 and doc["passed"] and doc["runs"] == 3 and doc["inputs"] == str(by_name)
    r3, doc3 = verify_json(models.path("conv_relu"), "--inputs", str(by_index))
    assert doc3["outputs"][0]["max_ref_abs"] == doc["outputs"][0]["max_ref_abs"]  # the same samples


def test_verify_on_samples_differs_from_seeded_inputs(models, tmp_path):
    name, values = samples(models, "conv_relu", 2)
    path = tmp_path / "large.npz"
    np.savez(path, **{name: values * 100})
    _, seeded = verify_json(models.path("conv_relu"), "--runs", "2")
    _, given = verify_json(models.path("conv_relu"), "--inputs", str(path))
    assert given["passed"] and given["outputs"][0]["max_ref_abs"] > 2 * seeded["outputs"][0]["max_ref_abs"]


def test_bad_sample_files_are_one_line_errors_naming_the_file(models, tmp_path):
    name, values = samples(models, "conv_relu", 2)
    cases = {"unknown.npz": {"nope": values}, "shape.npz": {name: values[:, :, :-1]},
             "empty.npz": {name: values[:0]}}
    for file, arrays in cases.items():
        np.savez(tmp_path / file, **arrays)
    (tmp_path / "junk.npz").write_text("not a zip")
    for file in [*cases, "junk.npz"]:
        path = str(tmp_path / file)
        r, doc = verify_json(models.path("conv_relu"), "--inputs", path)
        assert r.returncode == 2 and doc is None and r.stderr.count("\n") == 1 and path in r.stderr, r.stderr
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path("stb_same_bias_relu"), "-o", str(out), "--inputs", str(tmp_path / "junk.npz"))
    assert r.returncode == 2 and "junk.npz" in r.stderr and not out.exists()


def test_fix_verifies_on_the_given_samples(models, tmp_path):
    name, values = samples(models, "stb_same_bias_relu", 3)
    path, out = tmp_path / "samples.npz", tmp_path / "fixed.tflite"
    np.savez(path, **{name: values})
    r = gpucompat("fix", models.path("stb_same_bias_relu"), "-o", str(out), "--inputs", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    v = json.loads(r.stdout)["verification"]
    assert v["ok"] and all(b["outputs"] for b in v["backends"]) and out.exists()


def test_a_dynamic_range_model_is_compared_with_a_float_reference_and_says_so(models):
    path = models.path("verdict_dynamic_range_conv")
    r, doc = verify_json(path, "--runs", "3")
    assert r.returncode == 0 and doc["passed"], doc
    assert doc["reference"]["model"] == "float, weights dequantized (2 hybrid-quantized ops)"
    r = gpucompat("verify", path, "--runs", "1", "--cache-dir", "")
    assert "Reference: float, weights dequantized" in r.stdout


def test_a_hybrid_op_left_on_the_cpu_keeps_the_stored_reference(models):
    # rw_dynamic_range_fc's FULLY_CONNECTED v12 stays on the CPU: both sides run its hybrid kernel.
    r, doc = verify_json(models.path("rw_dynamic_range_fc"), "--runs", "2")
    assert r.returncode == 0 and doc["passed"] and doc["reference"]["model"] == "as stored"


def test_the_reference_model_is_read_again_only_when_it_changes(models):
    """Given the model already read, reference_model hands back the stored bytes themselves when
    nothing is to change, and the same float reference as without it when something is, leaving
    the model it was given as it was."""
    plain = models.bytes("conv_relu")
    model = ir.from_bytes(plain)
    data, changes = reference_model(plain, placements_by_subgraph(model, "gpu-current"), model)
    assert data is plain and changes == []
    hybrid = models.bytes("verdict_dynamic_range_conv")
    read = ir.from_bytes(hybrid)
    where = placements_by_subgraph(read, "gpu-current")
    stored = [t.dtype_name for t in read.graphs[0].tensors]
    assert reference_model(hybrid, where, read) == reference_model(hybrid, where)
    assert reference_model(hybrid, where, read)[1] and [t.dtype_name for t in read.graphs[0].tensors] == stored


def test_the_stored_hybrid_kernels_differ_from_the_gpu_beyond_the_default(models):
    # Why the float reference: the CPU's hybrid CONV_2D quantizes its activations on the fly.
    data = models.bytes("verdict_dynamic_range_conv")
    model = ir.from_bytes(data)
    runner = HybridRunner(model, placements(model, "gpu-current"), open_runtime(Settings(cache_dir=""), data))
    feeds = inputs.seeded_feeds(model.graphs[0])
    got, = runner.run(feeds)
    want, = run_reference(reference_interpreter(data, "the stored model"), feeds)
    assert default("fp32").failing(got, want).any()
