"""The numerics grid's "op-types", "provenance" and "int8-ops" groups
(gpucompat/calibrate/grid_ops.py): every form builds, loads and runs on the CPU interpreter, the
grid writes every op type the litert-mldrift profile delegates, and every full-int8 form names
int8, as its form key does. A batch whose accelerator log holds a device error (a shader
that does not compile: the partition's work is never submitted, every output is left unwritten)
is split until the form causing it runs alone, judged wrong with the runtime's words, while the
rest of the batch is measured as usual: shown with a fake accelerator child (no Vulkan device),
and on the real accelerator with SELECT_V2 reading a float16 scalar through DEQUANTIZE beside its
float32-constant twin."""

import os
import stat
import sys

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.calibrate import grid, grid_ops
from gpucompat.confirm import logs, runner
from gpucompat.ir.build import Sketch
from gpucompat.ir.opcodes import BUILTIN
from gpucompat.rules.support.forms import form_of
from gpucompat.rules.support.profiles.litert_mldrift import OPS
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from vulkan import without_device

GROUPS = grid_ops.groups()
POISONED = ("select_v2_r3_y_scalar_f16dq_0", "select_v2_r3_x_full_f16dq_0")  # the fake child's WGSL error
TWIN = "select_v2_r3_y_scalar_f32_0"
WGSL_ERROR = ("E0000 00:00:1795912025.777780    6866 environment.cc:105] Validation error: Error while parsing WGSL: "
              ":41:3 error: cannot initialize 'var' of type 'vec4<f32>' with value of type 'vec4<f16>'")
# Dawn's lines after a shader module fails to parse (ai-edge-litert 2.3.0 on lavapipe, fp32)
LOG = [
    "I0000 00:00:1795912025.763131    6866 delegate_kernel.cc:984] Initializing WebGPU-based API from graph.",
    WGSL_ERROR,
    "  var false_val : vec4<f32>= vec4<f16>(textureLoad(false_tensor_image2d, vec2<i32>((false_x), 0), 0));",
    " - While calling [Device].CreateShaderModule([ShaderModuleDescriptor]).",
    "E0000 00:00:1795912025.777820    6866 environment.cc:105] Validation error: [Invalid ShaderModule (unlabeled)] "
    "is invalid due to a previous error.",
    " - While validating compute stage ([Invalid ShaderModule (unlabeled)], entryPoint: \"main\").",
    "E0000 00:00:1795912025.796559    6866 environment.cc:105] Validation error: [Invalid CommandBuffer] is invalid "
    "due to a previous error.",
    " - While calling [Queue].Submit([[Invalid CommandBuffer]])",
]


def named(*names: str) -> list[grid.Form]:
    """Fresh forms of the groups by name (a run writes its results into its forms)."""
    every = {f.name: f for group in grid_ops.groups().values() for f in group}
    return [every[n] for n in names]


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_form_builds_loads_and_runs_on_the_cpu(group):
    """In the grid's batches: the model loads, the CPU interpreter prepares it as stored and runs
    it as the grid's reference (int8 weights a hybrid op reads as the floats they stand for) on
    the grid's inputs, every output of its shape and finite."""
    forms, bad = GROUPS[group], []
    assert len({f.name for f in forms}) == len(forms)
    for i in range(0, len(forms), grid.BATCH):
        batch = forms[i:i + grid.BATCH]
        data = grid._model(batch)
        graph = ir.from_bytes(data).graphs[0]
        reference_interpreter(data, f"{group} batch {i}")
        reference = grid._model(batch, exact=True) if any(f.quantized for f in batch) else data
        got = run_reference(reference_interpreter(reference, f"{group} batch {i}"), grid.seeded_feeds(graph, batch))
        bad += [f.name for f, g, out in zip(batch, got, graph.outputs)
                if g.shape != tuple(out.shape) or not np.isfinite(g.astype(np.float64)).all()]
    assert not bad


def test_the_grid_writes_every_op_type_the_profile_delegates():
    forms, written = grid.forms(), set()
    for i in range(0, len(forms), grid.BATCH):
        s = Sketch()
        s.output(*(f.write(s, f"f{j}") for j, f in enumerate(forms[i:i + grid.BATCH])))
        written |= {op.name for op in s.graph.ops}
    names = {code: name for name, code in BUILTIN.items()}
    assert sorted({names[code] for code in OPS} - written) == []


def test_each_provenance_form_names_where_its_operand_comes_from():
    kinds = {*grid_ops.STORED, "int8"}
    assert [f.name for f in GROUPS["provenance"] if not kinds & set(f.name.split("_"))] == []


def test_each_int8_form_and_its_key_name_int8():
    """A full-int8 model's op is keyed apart from its float twin (never measured is GPU007)."""
    forms, unnamed = GROUPS["int8-ops"], []
    for i in range(0, len(forms), grid.BATCH):
        batch = forms[i:i + grid.BATCH]
        graph = ir.from_bytes(grid._model(batch)).graphs[0]
        unnamed += [(f.name, key) for f, out in zip(batch, graph.outputs)
                    if "int8" not in f.name.split("_") or "int8" not in (key := form_of(out.producer) or "")]
    assert unnamed == []


def test_the_log_s_device_errors_are_the_first_of_each_chain():
    facts = logs.parse(LOG)
    assert facts.device_errors == [WGSL_ERROR.split("Validation error: ")[1]]
    assert logs.parse(LOG[:1]).device_errors == []


FAKE_CHILD = '''#!{python}
"""A fake accelerator child (infer_child.py's arguments after its path): the CPU interpreter's
outputs, except that at fp32 a model where SELECT_V2 reads a DEQUANTIZE of a float16 constant
logs Dawn's WGSL error and leaves every output zero, as the real accelerator does. Each run adds
its precision to $FAKE_RUNS."""
import json
import os
import sys

import numpy as np

from gpucompat import ir
from gpucompat.ir import dtypes
from gpucompat.verification.interpreter import reference_interpreter, run_reference

model, inputs, outputs, precision = sys.argv[2:6]
graph = ir.load(model).graphs[0]
with np.load(inputs) as given:
    feeds = [given[f"run0_t{{t.index}}"] for t in graph.inputs]
got = run_reference(reference_interpreter(open(model, "rb").read(), model), feeds)
poisoned = any(op.name == "SELECT_V2" and t.producer is not None and t.producer.name == "DEQUANTIZE"
               and t.producer.input(0).dtype == dtypes.FLOAT16 for op in graph.ops for t in op.present_inputs)
if poisoned and precision == "fp32":
    print({log!r}, file=sys.stderr)
    got = [np.zeros_like(g) for g in got]
with open(os.environ["FAKE_RUNS"], "a") as f:
    f.write(precision + "\\n")
np.savez(outputs, status=np.array(json.dumps({{"fully_accelerated": True, "error": None}})),
         **{{f"run0_t{{t.index}}": g for t, g in zip(graph.outputs, got)}})
'''


def test_a_form_whose_shader_fails_is_found_and_spoils_no_other(tmp_path):
    """Two poisoned forms among ten: each ends alone, wrong at fp32 with the runtime's words and
    right at fp16; every other form is right at both precisions, though the fake child zeroes
    every output of a poisoned run. Only fp32 runs again: fp16's first run was clean."""
    child, runs = tmp_path / "fake_python", tmp_path / "runs.txt"
    child.write_text(FAKE_CHILD.format(python=sys.executable, log="\n".join(LOG)))
    child.chmod(child.stat().st_mode | stat.S_IXUSR)
    fake = runner.Launcher(str(child), {**os.environ, "FAKE_RUNS": str(runs)}, "a fake accelerator")
    others = [f.name for f in GROUPS["op-types"][:7]]
    forms = named(*POISONED[:1], *others[:4], TWIN, *POISONED[1:], *others[4:])
    grid.run(forms, fake)
    by_name = {f.name: f for f in forms}
    for name in POISONED:
        r = by_name[name].result
        assert r["fp32"]["wrong"] and r["fp32"]["error"].startswith("Error while parsing WGSL: :41:3 error:"), name
        assert not r["fp16"]["wrong"] and "error" not in r["fp16"], name
    for name in (TWIN, *others):
        r = by_name[name].result
        assert not r["fp32"]["wrong"] and not r["fp16"]["wrong"] and "error" not in r["fp32"], name
    precisions = runs.read_text().split()
    assert precisions.count("fp16") == 1 and precisions.count("fp32") > 2


@pytest.mark.fidelity
def test_select_v2_of_a_float16_scalar_is_wrong_beside_its_float32_twin():
    """In one batch on the real accelerator: SELECT_V2 whose second value is a float16 scalar
    behind a DEQUANTIZE fails to compile its shader at fp32 (its output never written), while the
    same form with a float32 scalar is right."""
    f16, f32 = forms = named(POISONED[0], TWIN)
    try:
        grid.run(forms, runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))
    assert f16.result["fp32"]["wrong"] and "Error while parsing WGSL" in f16.result["fp32"]["error"]
    assert not f32.result["fp32"]["wrong"] and not f32.result["fp16"]["wrong"]
    assert "error" not in f32.result["fp32"]
