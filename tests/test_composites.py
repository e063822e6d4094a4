"""A STABLEHLO_COMPOSITE (litert-torch's `odml.rms_norm`, `odml.scaled_dot_product_attention`):

- on the CPU side of hybrid execution the CPU runs it by running its decomposition subgraph, so the
  cut-out CPU partition takes that subgraph along (it used to lose it, and the reference interpreter
  refused the partition: `op_state->subgraph_index < subgraphs->size()`);
- LiteRT's GPU accelerator crashes compiling a model holding one of three composite names (every
  LLM export as litert-torch's convert scripts write it) and compiles the others: `litert-mldrift`
  predicts which, and equals the accelerator on every point (needs a Vulkan device).

The model is written with the IR builder: subgraph 0 runs the composite then TANH, subgraph 1 (its
decomposition) squares its input."""

import json

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb
from flatbuffers import flexbuffers

from cli import gpucompat
from gpucompat import ir
from gpucompat.confirm import compare, runner
from gpucompat.ir.build import Sketch, operator, tensor
from gpucompat.ir.signatures import reachable, subgraph_calls
from gpucompat.ir.submodel import cut
from gpucompat.rewrites.inline_composite import _disagreement
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from vulkan import without_device

F32 = 0  # TensorType.FLOAT32


def composite_model(name: str = "odml.rms_norm", hybrid: bool = False) -> bytes:
    """x [1, 4] -> the composite `name` (decomposition: x * x) -> TANH; or, `hybrid`, -> a dense
    layer of int8 weights (a dynamic-range FULLY_CONNECTED: the CPU quantizes its input)."""
    s = Sketch()
    x = s.input("x", (1, 4))
    sub = fb.SubGraphT()
    sub.name = "odml.rms_norm.impl"
    s.model.fb.subgraphs.append(sub)
    body = ir.Graph(sub, s.model)
    s.model.graphs.append(body)
    a, b = tensor(body, "a", (1, 4), F32), tensor(body, "b", (1, 4), F32)
    body.inputs, body.outputs = [a], [b]
    body.ops.append(operator(body, "MUL", [a, a], [b]))
    body.link()
    y = tensor(s.graph, "y", (1, 4), F32)
    op = operator(s.graph, "STABLEHLO_COMPOSITE", [x], [y])
    options = fb.StableHLOCompositeOptionsT()
    options.name, options.decompositionSubgraphIndex, options.version = name, 1, 1
    options.compositeAttributes, options.compositeAttributesFormat = list(flexbuffers.Dumps({"epsilon": 1e-6})), 1
    op.fb.builtinOptions2Type, op.fb.builtinOptions2 = fb.BuiltinOptions2.StableHLOCompositeOptions, options
    s.graph.ops.append(op)
    if not hybrid:
        s.output(s.op("TANH", [y], (1, 4)))
        return s.to_bytes()
    weights = np.random.default_rng(4).integers(-127, 128, (8, 4)).astype(np.int8)
    options = fb.FullyConnectedOptionsT()
    s.output(s.op("FULLY_CONNECTED", [y, s.const("w", weights, (0.02, 0)), None], (1, 8), options=options,
                  version=3))
    return s.to_bytes()


def test_a_cut_composite_takes_its_decomposition_along():
    model = ir.from_bytes(composite_model())
    composite = model.graphs[0].ops[0]
    assert [f for _, f in subgraph_calls(composite)] == ["decompositionSubgraphIndex"] and reachable(model) == [0, 1]
    part = cut([composite], composite.inputs, composite.outputs)
    x = np.array([[0.5, -1.0, 2.0, 0.0]], np.float32)
    got = run_reference(reference_interpreter(part, "the cut partition"), [x])
    np.testing.assert_allclose(got[0], x * x)
    assert composite.fb.builtinOptions2.decompositionSubgraphIndex == 1, "the source model is left as it was"


@pytest.mark.opencl
def test_verify_runs_a_model_whose_cpu_partition_holds_a_composite(tmp_path):
    path = tmp_path / "composite.tflite"
    path.write_bytes(composite_model())
    r = gpucompat("verify", str(path), "--runs", "2")
    assert r.returncode == 0 and "PASSED" in r.stdout, r.stderr


CRASHING = ("odml.rms_norm", "odml.scaled_dot_product_attention", "odml.group_norm")


def test_litert_mldrift_predicts_the_composites_that_crash_the_compilation(tmp_path):
    paths = []
    for name in CRASHING:
        paths.append(tmp_path / f"{name}.tflite")
        paths[-1].write_bytes(composite_model(name))
    r = gpucompat("check", str(paths[0]), "--profile", "litert-mldrift", "--format", "json")
    failure = json.loads(r.stdout)["models"][0]["summary"]["failure"]
    assert "STABLEHLO_COMPOSITE 'odml.rms_norm'" in failure and "crashes" in failure and "enable_hlfb=False" in failure
    text = gpucompat("check", str(paths[0]), "--profile", "litert-mldrift").stdout
    assert " delegated" not in text.split("node subsets:", 1)[1].splitlines()[0], "nothing is delegated after a crash"
    plain = json.loads(gpucompat("check", str(paths[0]), "--format", "json").stdout)["models"][0]
    assert plain["summary"]["failure"] is None, "the classic delegate leaves the composite on the CPU"


@pytest.mark.fidelity
@pytest.mark.parametrize("name", [*CRASHING, "odml.layer_norm", "odml.upsample_bilinear2d", "my.composite"])
def test_the_accelerator_crashes_on_exactly_the_predicted_composites(name, tmp_path):
    path = tmp_path / f"{name}.tflite"
    path.write_bytes(composite_model(name))
    try:
        (c,) = compare.confirm([str(path)], runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))
    assert c.observed.compiles == (name not in CRASHING), c.runtime.error
    assert not c.disagreements, c.disagreements


def test_fix_inlines_a_crashing_composite_and_the_model_compiles(tmp_path):
    """Under litert-mldrift the crashing composite becomes its decomposition's ops in subgraph 0,
    the decomposition subgraph goes, the whole model is predicted to compile with every op on the
    GPU, and the outputs are the original's."""
    path, out = tmp_path / "rms.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(composite_model("odml.rms_norm"))
    r = gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [e["rewrite"] for e in doc["applied"]] == ["inline-composite"] and doc["verification"]["ok"]
    assert doc["before"]["ops_gpu"] == 0 and doc["after"]["fully_delegated"]
    fixed = ir.load(str(out))
    assert len(fixed.graphs) == 1 and [o.name for o in fixed.graphs[0].ops] == ["MUL", "TANH"]
    after = json.loads(gpucompat("check", str(out), "--profile", "litert-mldrift", "--format", "json").stdout)
    assert after["models"][0]["summary"]["failure"] is None
    x = np.array([[0.5, -1.0, 2.0, 0.0]], np.float32)
    got = run_reference(reference_interpreter(out.read_bytes(), "the fixed model"), [x])
    np.testing.assert_allclose(got[0], np.tanh(x * x), rtol=1e-6)


@pytest.mark.opencl
def test_fix_proves_a_hybrid_model_it_moves_onto_the_gpu_in_float(tmp_path):
    """Inlined, the crashing composite's model compiles and its int8-weight dense layer moves from
    the CPU (which quantizes its input) to the GPU (float): the executor's proof holds both sides in
    float, so the activation rounding (about 1e-2) is not blamed on the rewrite."""
    path, out = tmp_path / "rms_dense.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(composite_model("odml.rms_norm", hybrid=True))
    r = gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0, r.stderr
    proofs = {b["backend"]: b for b in doc["verification"]["backends"]}
    assert proofs["opencl-executor"]["ok"] and proofs["opencl-executor"]["not_run"] is None, proofs
    assert doc["before"]["ops_gpu"] == 0 and doc["after"]["fully_delegated"] and out.is_file()


def test_fix_inlines_a_composite_left_on_the_cpu(tmp_path):
    """A composite that compiles stays on the CPU, its decomposition a partition of its own; inlined,
    the model is one delegated partition."""
    path, out = tmp_path / "layer_norm.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(composite_model("odml.layer_norm"))
    r = gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and [e["rewrite"] for e in doc["applied"]] == ["inline-composite"]
    assert doc["before"]["partitions_delegated"] == 2 and not doc["before"]["fully_delegated"]
    assert doc["after"]["partitions_total"] == 1 and doc["after"]["fully_delegated"]


@pytest.mark.fidelity
def test_the_inlined_model_compiles_on_the_accelerator(tmp_path):
    """(Not with this toy's one-input odml.scaled_dot_product_attention: XNNPACK's own kernel for
    that name crashes the CPU interpreter reading it.)"""
    path, out = tmp_path / "rms.tflite", tmp_path / "fixed.tflite"
    path.write_bytes(composite_model("odml.rms_norm"))
    assert gpucompat("fix", str(path), "-o", str(out), "--profile", "litert-mldrift").returncode == 0
    try:
        (c,) = compare.confirm([str(out)], runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))
    assert c.observed.compiles and not c.disagreements, (c.runtime.error, c.disagreements)


def _composite(s: Sketch, name: str, inputs: list, shape: tuple, attributes: dict, body_op: str) -> object:
    """Append the composite `name` over `inputs` (writing `shape`) to the sketch's main subgraph, its
    decomposition a new subgraph of one `body_op` reading the first input twice."""
    sub = fb.SubGraphT()
    s.model.fb.subgraphs.append(sub)
    body = ir.Graph(sub, s.model)
    s.model.graphs.append(body)
    inner = [tensor(body, f"in{i}", t.shape, F32) for i, t in enumerate(inputs)]
    out = tensor(body, "out", shape, F32)
    body.inputs, body.outputs = inner, [out]
    body.ops.append(operator(body, body_op, [inner[0], inner[0]], [out]))
    body.link()
    y = tensor(s.graph, f"{name}_out", shape, F32)
    op = operator(s.graph, "STABLEHLO_COMPOSITE", inputs, [y])
    options = fb.StableHLOCompositeOptionsT()
    options.name, options.decompositionSubgraphIndex, options.version = name, len(s.model.graphs) - 1, 1
    options.compositeAttributes, options.compositeAttributesFormat = list(flexbuffers.Dumps(attributes)), 1
    op.fb.builtinOptions2Type, op.fb.builtinOptions2 = fb.BuiltinOptions2.StableHLOCompositeOptions, options
    s.graph.ops.append(op)
    return y


def attention_composite(tmp_path, with_norm: bool = False) -> str:
    """An odml.scaled_dot_product_attention composite over q [1, 8, 4, 16], k and v [1, 16, 1, 16]
    and a mask [1, 1, 8, 16] (XNNPACK runs it by its name and scale), whose decomposition is not
    attention (q + q); `with_norm`: q first goes through an odml.rms_norm composite (q * q). The
    file is written for `fix`."""
    s = Sketch()
    q, k, v = s.input("q", (1, 8, 4, 16)), s.input("k", (1, 16, 1, 16)), s.input("v", (1, 16, 1, 16))
    mask = s.input("mask", (1, 1, 8, 16))
    if with_norm:
        q = _composite(s, "odml.rms_norm", [q], q.shape, {"epsilon": 1e-6}, "MUL")
    s.output(_composite(s, "odml.scaled_dot_product_attention", [q, k, v, mask], (1, 8, 4, 16), {"scale": 0.25},
                        "ADD"))
    path = tmp_path / f"attention{'_norm' * with_norm}.tflite"
    path.write_bytes(s.to_bytes())
    return str(path)


def test_a_composite_whose_decomposition_differs_is_not_inlined(tmp_path):
    """The CPU runs this attention composite with XNNPACK's own kernel, which the decomposition does
    not match: inlining would change the model, so fix leaves it and says why. A decomposition the
    CPU itself runs agrees by construction."""
    agreeing = ir.from_bytes(composite_model("odml.rms_norm"))
    assert _disagreement(agreeing.graphs[0].ops[0], "odml.rms_norm") is None
    path, out = attention_composite(tmp_path), tmp_path / "fixed.tflite"
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    reasons = [e["reason"] for e in doc["not_applied"] if e["rewrite"] == "inline-composite"]
    assert len(reasons) == 1 and "computes something else than the CPU's own kernel" in reasons[0]
    assert r.returncode == 0 and not doc["applied"] and "XNNPACK" not in r.stderr


def test_a_fix_that_leaves_the_model_crashing_is_not_written(tmp_path):
    """A crashing norm composite that is inlined, then the attention one that is refused: the model
    still crashes the compile, so the rewrites gain nothing and nothing is written."""
    path, out = attention_composite(tmp_path, with_norm=True), tmp_path / "fixed.tflite"
    r = gpucompat("fix", path, "-o", str(out), "--profile", "litert-mldrift", "--format", "json")
    doc = json.loads(r.stdout)
    assert [e["rewrite"] for e in doc["applied"]] == ["inline-composite"]
    assert r.returncode == 1 and not out.exists() and doc["refusal"].startswith("nothing gained")
    assert "odml.scaled_dot_product_attention" in doc["refusal"]
