"""`gpucompat check` as a user runs it: the JSON contract, terminal text and exit codes."""

import json

from cli import gpucompat


def check_json(*args):
    r = gpucompat("check", *args, "--format", "json")
    assert "Traceback" not in r.stderr
    return r.returncode, json.loads(r.stdout)


def test_json_contract_on_a_split_model(models):
    # conv -> GATHER_ND -> mul -> add -> tanh: GATHER_ND has no GPU parser, so the runtime forms
    # GPU[conv] CPU[gather_nd] GPU[mul, add, tanh] and delegates only the larger GPU run.
    code, doc = check_json(models.path("gather_nd_island"))
    assert code == 1
    assert doc["schema_version"] == 1 and doc["tool"]["name"] == "gpucompat"
    rec = doc["models"][0]
    assert rec["error"] is None and rec["profile"] == "gpu-current"
    contract = {"ops_total": 5, "ops_gpu": 3, "ops_cpu": 2, "partitions_total": 2,
                "partitions_delegated": 1, "fully_delegated": False, "delegation_fails": False}
    assert {k: rec["summary"][k] for k in contract} == contract  # the schema lets fields be added
    subsets = rec["subgraphs"][0]["node_subsets"]
    assert [(s["type"], s["nodes"], s["delegated"]) for s in subsets] == [
        ("gpu", [0], False), ("cpu", [1], False), ("gpu", [2, 3, 4], True)]
    [gather] = rec["unsupported"]
    assert (gather["op"], gather["opcode"], gather["nodes"], gather["layer"]) == \
        ("GATHER_ND", 107, [[0, 1]], "partition")
    assert [o["placement"] for o in rec["ops"]] == ["cpu", "cpu", "gpu", "gpu", "gpu"]
    codes = {f["code"] for f in rec["findings"]}
    assert {"GPU001", "PRT101"} <= codes


def test_two_partitions_delegated_when_asked(models):
    code, doc = check_json(models.path("gather_nd_island"), "--max-delegated-partitions", "2")
    s = doc["models"][0]["summary"]
    assert (s["ops_gpu"], s["partitions_delegated"], s["partitions_total"]) == (4, 2, 3)


def test_zero_partitions_means_one(models):
    _, doc = check_json(models.path("gather_nd_island"), "--max-delegated-partitions", "0")
    assert doc["models"][0]["summary"]["partitions_delegated"] == 1


def test_clean_model_exits_zero_and_terminal_names_the_op_code(models):
    r = gpucompat("check", models.path("conv_relu"))
    assert r.returncode == 0 and "3 on GPU (100%)" in r.stdout
    r = gpucompat("check", models.path("gather_nd_island"))
    assert r.returncode == 1 and "#107" in r.stdout and "GATHER_ND" in r.stdout


def test_fail_on_never_and_output_file(models, tmp_path):
    out = tmp_path / "report.json"
    r = gpucompat("check", models.path("gather_nd_island"), "--format", "json", "--fail-on", "never",
                  "--output", str(out))
    assert r.returncode == 0 and r.stdout == ""
    assert json.loads(out.read_text())["models"][0]["summary"]["ops_gpu"] == 3


def test_directory_of_models(models, tmp_path):
    import shutil

    for name in ("conv_relu", "gather_nd_island"):
        shutil.copy(models.path(name), tmp_path / f"{name}.tflite")
    code, doc = check_json(str(tmp_path))
    assert code == 1 and len(doc["models"]) == 2


def test_check_never_imports_tensorflow_or_pyopencl(models):
    import subprocess
    import sys

    probe = ("import sys; from gpucompat.cli import main; sys.argv=['gpucompat','check',sys.argv[1]]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n"
             "assert 'pyopencl' not in sys.modules, 'pyopencl was imported'")
    r = subprocess.run([sys.executable, "-c", probe, models.path("conv_relu")], capture_output=True, text=True,
                       cwd="/")
    assert r.returncode == 0, r.stderr


def test_version_and_module_entry_point():
    r = gpucompat("--version")
    assert r.returncode == 0 and r.stdout.startswith("gpucompat ")


def test_a_file_written_is_said(models, tmp_path):
    html, report = tmp_path / "report.html", tmp_path / "check.json"
    r = gpucompat("check", models.path("conv_relu"), "--html", str(html), "--format", "json", "--output", str(report))
    assert r.returncode == 0 and html.exists() and report.exists()
    assert r.stderr.splitlines() == [f"gpucompat: wrote {report} (json)", f"gpucompat: wrote {html} (html)"]


def test_what_to_change_first_gives_the_command_and_it_runs(models, tmp_path):
    import shlex

    model = tmp_path / "island.tflite"
    model.write_bytes(models.bytes("gather_nd_island"))
    r = gpucompat("check", str(model), "--fail-on", "never", env={"COLUMNS": "250"})
    lines = r.stdout.splitlines()
    command = next(line.strip() for line in lines if line.strip().startswith("gpucompat fix /"))
    assert command == shlex.join(["gpucompat", "fix", str(model), "-o", str(tmp_path / "island.fixed.tflite"),
                                  "--rewrite", "substitute-gather"])
    ran = gpucompat(*shlex.split(command)[1:])
    assert ran.returncode == 0, ran.stderr
    fixed = json.loads(gpucompat("check", str(tmp_path / "island.fixed.tflite"), "--format", "json").stdout)
    assert fixed["models"][0]["summary"]["fully_delegated"]


def test_a_profile_nothing_was_measured_for_reads_unknown_not_zero(models):
    r = gpucompat("check", models.path("conv_relu"), models.path("gather_nd_island"), "--format", "json")
    for rec in json.loads(r.stdout)["models"]:  # gpu-current on cl: no numerics table stands for it
        assert rec["summary"]["ops_wrong"] is None and rec["summary"]["ops_unmeasured"] is None
    measured = json.loads(gpucompat("check", models.path("conv_relu"), "--profile", "litert-mldrift",
                                    "--format", "json").stdout)["models"][0]["summary"]
    assert measured["ops_wrong"] == 0
    table = gpucompat("check", models.path("conv_relu"), models.path("gather_nd_island"), "--fail-on", "never",
                      env={"COLUMNS": "200"}).stdout
    rows = [line for line in table.splitlines() if line.startswith("│ ") and ".tflite" in line]
    assert rows and all(line.count("not measured") == 2 for line in rows)
