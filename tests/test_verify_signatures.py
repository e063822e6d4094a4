"""`verify` and `fix` on a model with several signatures, as LLM exports ship prefill and decode:
by default `verify` runs every signature, each named in the terminal and in JSON (its own document
under "signatures"); `--signature NAME` runs one; an unknown name is one line naming the model's
signatures, exit 2. `fix` proves each signature it rewrote on that signature's inputs. The models
come from TensorFlow's converter (two concrete functions of one module), built once per run."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.ir.signatures import make_main, reachable, signatures
from modelgen import tf
from vulkan import gate

pytestmark = pytest.mark.opencl


@pytest.fixture(scope="module")
def two_signatures(tmp_path_factory) -> str:
    """prefill: ids [1, 8] -> the 16-row table's rows -> a dense layer; decode: ids [1, 1] -> the
    same rows scaled by 2 -> the same dense layer."""
    t = tf()
    rng = np.random.default_rng(0)
    table = t.constant(rng.standard_normal([16, 8]).astype(np.float32))
    dense = t.constant(rng.standard_normal([8, 4]).astype(np.float32))

    class Decoder(t.Module):
        @t.function(input_signature=[t.TensorSpec([1, 8], t.int32)])
        def prefill(self, ids):
            return {"logits": t.matmul(t.reshape(t.gather(table, ids), [8, 8]), dense)}

        @t.function(input_signature=[t.TensorSpec([1, 1], t.int32)])
        def decode(self, ids):
            return {"logits": t.matmul(t.reshape(t.gather(table, ids), [1, 8]) * 2.0, dense)}

    module = Decoder()
    functions = [module.prefill.get_concrete_function(), module.decode.get_concrete_function()]
    data = t.lite.TFLiteConverter.from_concrete_functions(functions, module).convert()
    path = tmp_path_factory.mktemp("signatures") / "decoder.tflite"
    path.write_bytes(data)
    return str(path)


def test_a_signature_made_main_keeps_every_reference(two_signatures):
    model = ir.load(two_signatures)
    found = dict(signatures(model))
    assert set(found) == {"prefill", "decode"} and len(set(found.values())) == 2
    make_main(model, found["decode"])
    assert dict(signatures(model))["decode"] == 0 and model.graphs[0].inputs[0].shape == (1, 1)
    assert reachable(model) == [0]


def test_verify_runs_every_signature_and_names_each(two_signatures):
    r = gpucompat("verify", two_signatures, "--runs", "2", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["passed"] and sorted(s["signature"] for s in doc["signatures"]) == ["decode", "prefill"]
    runs = {s["signature"]: s for s in doc["signatures"]}
    assert runs["decode"]["outputs"][0]["max_ref_abs"] > 0 and runs["prefill"]["outputs"][0]["passed"]
    text = gpucompat("verify", two_signatures, "--runs", "1")
    assert text.returncode == 0 and "signature decode" in text.stdout and "2 signatures: all passed" in text.stdout


def test_verify_runs_the_signature_asked_for(two_signatures):
    r = gpucompat("verify", two_signatures, "--signature", "decode", "--runs", "2", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["signature"] == "decode" and doc["passed"]
    missing = gpucompat("verify", two_signatures, "--signature", "prefill_32")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "no signature 'prefill_32'" in missing.stderr and "prefill, decode" in missing.stderr.replace(
        "decode, prefill", "prefill, decode")


@pytest.mark.fidelity
def test_the_accelerator_runs_each_signature_on_its_own_inputs(two_signatures):
    """LiteRT lists the signatures in file order, whatever subgraph each runs: the accelerator
    side runs the one that is now the main subgraph, on that signature's inputs (it used to run
    the first listed one and fail on the other's input sizes)."""
    r = gpucompat("verify", two_signatures, "--runner", "litert-gpu", "--runs", "1", "--cache-dir", "",
                  "--format", "json", timeout=600)
    gate(r)
    assert r.returncode == 0, r.stderr
    runs = {s["signature"]: s for s in json.loads(r.stdout)["signatures"]}
    assert set(runs) == {"prefill", "decode"} and all(s["passed"] for s in runs.values())


@pytest.fixture(scope="module")
def two_image_signatures(tmp_path_factory) -> str:
    """prefill: an RGB image [1, 8, 8, 3] through a 3x3 conv and RELU; decode: an RGB image
    [1, 4, 4, 3] through the same conv, doubled."""
    t = tf()
    w = t.constant((np.random.default_rng(1).standard_normal([3, 3, 3, 8]) * 0.3).astype(np.float32))

    class Images(t.Module):
        @t.function(input_signature=[t.TensorSpec([1, 8, 8, 3], t.float32)])
        def prefill(self, x):
            return {"out": t.nn.relu(t.nn.conv2d(x, w, 1, "SAME"))}

        @t.function(input_signature=[t.TensorSpec([1, 4, 4, 3], t.float32)])
        def decode(self, x):
            return {"out": t.nn.conv2d(x, w, 1, "SAME") * 2.0}

    module = Images()
    functions = [module.prefill.get_concrete_function(), module.decode.get_concrete_function()]
    path = tmp_path_factory.mktemp("images") / "two_images.tflite"
    path.write_bytes(t.lite.TFLiteConverter.from_concrete_functions(functions, module).convert())
    return str(path)


def test_fix_proves_each_signature_it_rewrote(two_image_signatures, tmp_path):
    """rgb-to-rgba rewrites both signatures' inputs; the proof runs each signature on its own
    inputs (an RGBA image of its size) and names it, where it used to run the main subgraph only."""
    r = gpucompat("fix", two_image_signatures, "-o", str(tmp_path / "fixed.tflite"), "--unsafe-fixes",
                  "--rewrite", "rgb-to-rgba", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [a["rewrite"] for a in doc["applied"]] == ["rgb-to-rgba", "rgb-to-rgba"]
    proofs = {b["backend"]: b["ok"] for b in doc["verification"]["backends"]}
    assert {"reference-interpreter, signature prefill", "reference-interpreter, signature decode"} <= set(proofs)
    assert all(proofs.values()), proofs


def test_check_names_the_signature_each_subgraph_runs(two_signatures):
    doc = json.loads(gpucompat("check", two_signatures, "--format", "json").stdout)
    assert sorted(s for sg in doc["models"][0]["subgraphs"] for s in sg["signatures"]) == ["decode", "prefill"]
    text = gpucompat("check", two_signatures).stdout
    assert "(signature decode) node subsets" in text and "(signature prefill) node subsets" in text
