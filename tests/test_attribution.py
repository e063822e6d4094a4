"""Every op names the layer or module it came from (gpucompat/attribution): read from what TF's
converter and litert-torch really write, shown in check's JSON, terminal, grouping and SARIF."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.attribution.attribute import attribute
from gpucompat.attribution.torch_names import ModuleNames
from irbuild import IRModel, conv_options
from models_attribution import KERAS_BLOCK, KERAS_BLOCK_CONV, KERAS_BLOCKER, KERAS_STEM, TF_SCOPE
from side_env import run_side


def _check_json(path: str, *args: str) -> dict:
    proc = gpucompat("check", path, "--format", "json", "--fail-on", "never", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["models"][0]


def _ops(rec: dict, op: str) -> list[dict]:
    return [o for o in rec["ops"] if o["op"] == op]


@pytest.fixture(scope="module")
def keras_rec(models):
    return _check_json(models.path("attr_keras"))


def test_a_keras_blocker_names_its_layer(keras_rec):
    (gather,) = _ops(keras_rec, "GATHER_ND")
    assert gather["supported"] is False
    assert gather["source"]["framework"] == "keras"
    assert gather["source"]["path"] == KERAS_BLOCKER
    assert gather["source"]["exact"] is True
    (group,) = [u for u in keras_rec["unsupported"] if u["op"] == "GATHER_ND"]
    assert group["sources"] == [KERAS_BLOCKER]


def test_keras_nesting_repeats_and_fused_activations_read_as_the_layer(keras_rec):
    convs = [o["source"]["path"] for o in _ops(keras_rec, "CONV_2D")]
    # the stem's activation is fused into it; the nested model is called twice, its convolution
    # fused with the block's own ReLU layer: each op is the convolution's
    assert convs == [KERAS_STEM, f"{KERAS_BLOCK}/{KERAS_BLOCK_CONV}", f"{KERAS_BLOCK}/{KERAS_BLOCK_CONV}"]


def test_an_op_named_after_the_signature_output_is_unattributed(keras_rec):
    last = keras_rec["ops"][-1]
    assert last["source"]["names"] == ["StatefulPartitionedCall_1:0"]
    assert last["source"]["path"] is None and last["source"]["framework"] == "keras"


def test_an_output_op_is_attributed_from_the_converters_debug_metadata(models):
    plain = _ops(_check_json(models.path("attr_keras_output_blocker")), "GATHER_ND")[0]["source"]
    assert plain["path"] is None  # named after the signature: nothing to read
    debug = _ops(_check_json(models.path("attr_keras_output_blocker_debug")), "GATHER_ND")[0]["source"]
    assert (debug["framework"], debug["path"]) == ("keras", KERAS_BLOCKER)


def test_keras_automatic_layer_names_give_the_class(keras_rec):
    (reshape,) = _ops(keras_rec, "RESHAPE")
    assert (reshape["source"]["path"], reshape["source"]["kind"]) == ("reshape", "Reshape")
    (gather,) = _ops(keras_rec, "GATHER_ND")
    assert gather["source"]["kind"] is None  # a layer the user named: its class is not in the file


def test_tensorflow_name_scopes(models):
    rec = _check_json(models.path("attr_tf_scopes"))
    (gather,) = _ops(rec, "GATHER_ND")
    assert (gather["source"]["framework"], gather["source"]["path"]) == ("tensorflow", TF_SCOPE)
    (mul,) = _ops(rec, "MUL")
    assert mul["source"]["path"] is None


def test_terminal_where_column_group_by_and_sarif(models):
    path = models.path("attr_keras")
    table = gpucompat("check", path, "--fail-on", "never", env={"COLUMNS": "250"})
    row = next(line for line in table.stdout.splitlines() if "GATHER_ND" in line and "#107" in line)
    assert row.rstrip().endswith(KERAS_BLOCKER)
    grouped = gpucompat("check", path, "--fail-on", "never", "--group-by", "source", env={"COLUMNS": "250"}).stdout
    lines = grouped.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{KERAS_BLOCKER}:"))
    assert "GATHER_ND #" in lines[heading + 1] and "rejected" in lines[heading + 1]
    sarif = json.loads(gpucompat("check", path, "--format", "sarif", "--fail-on", "never").stdout)
    gather = next(r for r in sarif["runs"][0]["results"] if "GATHER_ND" in r["message"]["text"])
    names = [loc["fullyQualifiedName"] for loc in gather["locations"][0]["logicalLocations"]]
    assert names[0] == KERAS_BLOCKER


# litert-torch's names, as tests/side/torch_attribution.py's export writes them
_ROOT = "__main__.Net"
_BLOCK = _ROOT + "/__main__.Block_{}/__main__.Attn_attn"


def _named(*names: str) -> ir.Model:
    """One CONV_2D per name, its output tensor so named."""
    m = IRModel()
    x = m.input("x", [1, 4, 4, 4])
    w, b = m.const("w", np.ones((4, 1, 1, 4), np.float32)), m.const("b", np.zeros(4, np.float32))
    for name in names:
        x = m.op("CONV_2D", [x, w, b], [1, 4, 4, 4], options=conv_options(), output_name=name)
    m.output(x)
    return ir.from_bytes(m.bytes(), "named.tflite")


def _paths(model: ir.Model, names: ModuleNames | None = None) -> list[tuple]:
    return [(s.path, s.kind, s.exact) for s in attribute(model, names).values()]


def test_litert_torch_readings_without_module_names():
    model = _named(
        _ROOT + "/torch.nn.modules.container.Sequential_stem/torch.nn.modules.activation.ReLU_2;;"
        + _ROOT + "/torch.nn.modules.container.Sequential_stem/torch.nn.modules.conv.Conv2d_0;1",
        _BLOCK.format(1) + "/torch.nn.modules.linear.Linear_q;3",
        _BLOCK.format(1) + ";;" + _BLOCK.format(0) + ";",  # one op, two blocks' names
        _ROOT + ";12",
        "serving_default_output_0_output")
    assert _paths(model) == [
        ("stem.0", "Conv2d", True),  # the fused ReLU gives way to the convolution
        ("?.1.attn.q", "Linear", False),  # the ModuleList holding the blocks is never named
        ("", "Net", False),  # two blocks: only the top level holds both
        ("", "Net", True),
        (None, None, False),
    ]


def test_module_names_make_the_reading_exact_and_an_ambiguous_one_stays_a_reading():
    model = _named(_BLOCK.format(1) + "/torch.nn.modules.linear.Linear_q;3")
    names = ModuleNames.parse(" __main__.Net\nblocks torch.nn.modules.container.ModuleList\n"
                              "blocks.1 __main__.Block\nblocks.1.attn __main__.Attn\n"
                              "blocks.1.attn.q torch.nn.modules.linear.Linear\n")
    assert _paths(model, names) == [("blocks.1.attn.q", "Linear", True)]
    twice = ModuleNames.parse("enc.blocks.1.attn.q\ndec.blocks.1.attn.q\n")  # two modules it can be
    assert _paths(model, twice) == [("?.1.attn.q", "Linear", False)]


def test_a_bad_module_names_file_is_one_line_naming_it(models, tmp_path):
    bad = tmp_path / "modules.txt"
    bad.write_text("stem torch.nn.Conv2d\nthis is ( not a module\n")
    proc = gpucompat("check", models.path("attr_tf_scopes"), "--torch-module-names", str(bad))
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert str(bad) in line and "line 2" in line


@pytest.fixture(scope="module")
def torch_export(tmp_path_factory):
    out = tmp_path_factory.mktemp("torch_attr")
    model, names = out / "net.tflite", out / "modules.txt"
    run_side("torch", "torch_attribution.py", str(model), str(names))
    return str(model), str(names)


def test_litert_torch_export_names_its_modules(torch_export):
    model, names = torch_export
    rec = _check_json(model)
    (gather,) = _ops(rec, "GATHER_ND")
    assert gather["supported"] is False
    assert gather["source"] | {"names": None} == {"framework": "pytorch", "path": "head.0", "kind": "Picker",
                                                    "exact": True, "names": None}
    conv = _ops(rec, "CONV_2D")[0]["source"]
    assert (conv["path"], conv["kind"]) == ("stem.0", "Conv2d")  # batch norm and ReLU fused into it
    queries = [o["source"] for o in _ops(rec, "FULLY_CONNECTED") if o["source"]["kind"] == "Linear"]
    assert {(s["path"], s["exact"]) for s in queries} >= {("?.0.attn.q", False), ("?.1.attn.q", False)}

    exact = _check_json(model, "--torch-module-names", names)
    paths = {o["source"]["path"] for o in exact["ops"]}
    assert {"blocks.0.attn.q", "blocks.1.attn.q", "blocks.1.norm", "head.0"} <= paths
    assert all(o["source"]["exact"] for o in exact["ops"] if o["source"]["path"] is not None)

