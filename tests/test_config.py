"""[tool.gpucompat] in pyproject.toml: found from the model's directory upwards, overridden by flags,
and a bad key is exit 2 naming it."""

import json
import shutil

import pytest

from cli import gpucompat


def project(tmp_path, models, table: str):
    """A project directory with a pyproject.toml and the split model two levels below it."""
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'app'\n\n[tool.gpucompat]\n{table}\n")
    sub = tmp_path / "assets" / "models"
    sub.mkdir(parents=True)
    target = sub / "two_gathers.tflite"
    shutil.copy(models.path("two_gathers"), target)
    return str(target)


def summary(r):
    return json.loads(r.stdout)["models"][0]


def test_config_found_upwards_and_flags_override(models, tmp_path):
    model = project(tmp_path, models, "max-delegated-partitions = 3\nfail-on = 'never'\nignore = ['PRT']")
    rec = summary(gpucompat("check", model, "--format", "json"))
    # three GPU runs of 1, 1 and 2 nodes: all delegated with 3 partitions
    assert rec["summary"]["ops_gpu"] == 4 and rec["options"]["max_delegated_partitions"] == 3
    assert {f["code"] for f in rec["findings"]} == {"GPU001"}
    r = gpucompat("check", model, "--format", "json", "--max-delegated-partitions", "1")
    assert summary(r)["summary"]["ops_gpu"] == 2 and r.returncode == 0  # fail-on never from the file
    assert gpucompat("check", model, "--format", "json", "--fail-on", "error").returncode == 1


def test_select_and_per_path_ignores(models, tmp_path):
    model = project(tmp_path, models,
                    "select = ['GPU', 'PRT102']\n[tool.gpucompat.per-path-ignores]\n'assets/**' = ['PRT102']")
    codes = {f["code"] for f in summary(gpucompat("check", model, "--format", "json"))["findings"]}
    assert codes == {"GPU001"}


def test_bad_key_is_exit_2_naming_it(models, tmp_path):
    model = project(tmp_path, models, "max-delegated-partitions = 'two'")
    r = gpucompat("check", model)
    assert r.returncode == 2 and "max-delegated-partitions" in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1
    (tmp_path / "pyproject.toml").write_text("[tool.gpucompat]\nprofiel = 'gpu-current'\n")
    r = gpucompat("check", model)
    assert r.returncode == 2 and "profiel" in r.stderr and "unknown key" in r.stderr


def test_an_unknown_rule_code_is_a_usage_error_naming_it(models, tmp_path):
    # a typo in --select would otherwise hide every finding and pass the gate
    model = models.path("two_gathers")
    for flag, value, unknown in (("--select", "NOPE999", "NOPE999"), ("--ignore", "gpu,prt9", "PRT9")):
        r = gpucompat("check", model, flag, value)
        assert r.returncode == 2 and unknown in r.stderr and flag in r.stderr and "Traceback" not in r.stderr
        assert r.stdout == ""
    r = gpucompat("check", model, "--select", "gpu,PRT1", "--format", "json")  # prefixes, any case
    assert r.returncode == 1 and {f["code"] for f in summary(r)["findings"]} == {"GPU001", "PRT101", "PRT102"}
    tables = ("select = ['GPU', 'NOPE']", "ignore = ['XYZ1']", "[tool.gpucompat.per-path-ignores]\n'a/**' = ['GPU9']")
    for table in tables:
        (tmp_path / "pyproject.toml").write_text(f"[tool.gpucompat]\n{table}\n")
        r = gpucompat("check", model, "--config", str(tmp_path / "pyproject.toml"))
        assert r.returncode == 2 and "unknown rule code" in r.stderr and r.stderr.count("\n") == 1, table


def test_explicit_config_file(models, tmp_path):
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text("[tool.gpucompat]\nmax_delegated_partitions = 2\n")
    r = gpucompat("check", models.path("two_gathers"), "--format", "json", "--config", str(cfg))
    assert summary(r)["summary"]["partitions_delegated"] == 2


def test_selection_prefixes():
    from gpucompat.rules.lint import selected

    assert selected("PERF201") and not selected("PERF201", ignore=("PERF",))
    assert selected("PERF201", select=("PERF201",), ignore=("PERF",))  # the more specific prefix wins
    assert not selected("PERF202", select=("PERF201",))
    assert not selected("GPU001", select=("GPU",), ignore=("GPU",))


def test_fix_reads_the_shared_keys_and_its_own_table(models, tmp_path):
    model = project(tmp_path, models, "max-delegated-partitions = 3\n[tool.gpucompat.fix]\nskip = ['substitute']")
    doc = json.loads(gpucompat("fix", model, "--dry-run", "--format", "json").stdout)
    assert doc["before"]["partitions_delegated"] == 3
    assert doc["applied"] == []  # the GATHER_ND substitution is skipped by the file
    doc = json.loads(gpucompat("fix", model, "--dry-run", "--format", "json", "--skip", "rgb-to-rgba").stdout)
    assert "substitute-gather" in [a["rewrite"] for a in doc["applied"]]  # the flag replaces the file's skip


@pytest.mark.opencl
def test_verify_reads_its_table(models, tmp_path):
    model = project(tmp_path, models, "[tool.gpucompat.verify]\nruns = 2\nprecision = 'fp16'")
    doc = json.loads(gpucompat("verify", model, "--format", "json").stdout)
    assert doc["runs"] == 2 and doc["precision"] == "fp16"
    doc = json.loads(gpucompat("verify", model, "--format", "json", "--runs", "1").stdout)
    assert doc["runs"] == 1


def test_diff_and_report_read_the_shared_profile(models, tmp_path):
    model = project(tmp_path, models, "profile = 'litert-mldrift'")
    assert json.loads(gpucompat("diff", model, model, "--format", "json").stdout)["profile"] == "litert-mldrift"
    html = tmp_path / "r.html"
    assert gpucompat("report", model, "-o", str(html)).returncode == 0
    assert "litert-mldrift" in html.read_text() and "gpu-current" not in html.read_text()


def test_a_bad_key_in_any_commands_table_is_exit_2_whatever_command_runs(models, tmp_path):
    model = project(tmp_path, models, "[tool.gpucompat.confirm]\ntimeout = 'long'")
    for command in (["check", model], ["diff", model, model], ["fix", model, "--dry-run"], ["confirm", model]):
        r = gpucompat(*command)
        assert r.returncode == 2 and "[tool.gpucompat.confirm] timeout" in r.stderr, command
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.gpucompat.verify]\nbackend = 'cl'\n")
    r = gpucompat("verify", model)
    assert r.returncode == 2 and "backend" in r.stderr and "opencl, litert-gpu" in r.stderr


def test_a_profile_list_is_for_check_only(models, tmp_path):
    model = project(tmp_path, models, "profile = 'gpu-current,litert-mldrift'")
    assert gpucompat("check", model, "--fail-on", "never").returncode == 0
    r = gpucompat("fix", model, "--dry-run")
    assert r.returncode == 2 and "profile" in r.stderr and "[tool.gpucompat.fix]" in r.stderr
    assert gpucompat("fix", model, "--dry-run", "--profile", "gpu-current").returncode == 0


def test_the_readme_example_is_valid_for_every_command():
    import os
    import re
    import tomllib

    from gpucompat import config

    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8").read()
    block = re.search(r"```toml\n(\[tool\.gpucompat\].*?)```", readme, re.S).group(1)
    table = tomllib.loads(block)["tool"]["gpucompat"]
    assert config.parse(table, "README.md", "verify").values["precision"] == "fp16"
    assert config.parse(table, "README.md", "fix").values["skip"] == ("rgb-to-rgba",)
    assert config.parse(table, "README.md", "check").values["fail_on"] == "warning"
