"""[tool.gpucompat] in pyproject.toml: found from the model's directory upwards, overridden by flags,
and a bad key is exit 2 naming it."""

import json
import shutil

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
    model = project(tmp_path, models, "select = ['GPU', 'PRT102']\n[tool.gpucompat.per-path-ignores]\n'assets/**' = ['PRT102']")
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
