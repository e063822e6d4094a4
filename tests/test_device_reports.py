"""Device reports (DEV6xx, rules/lint/device_reports/): raised only for the GPU families the user
names, each citing its public report and saying it is unverified here, on the forms the reports
describe and not on their healthy twins. Models written with tests/irbuild.py (tests/models_rules.py)."""

import pytest

import gpucompat
from cli import gpucompat as run_cli
from gpucompat.errors import GpucompatError
from irbuild import IRModel
from models_rules import attention, depth_to_space, residual_linear, summed


def dev_findings(m: IRModel, tmp_path, families=("adreno", "mali", "apple", "webgpu"),
                 profile="litert-mldrift") -> dict[str, list[dict]]:
    rec = gpucompat.check(m.save(tmp_path / "m.tflite"), profile=profile, device_families=families)
    out: dict[str, list[dict]] = {}
    for f in rec["findings"]:
        if f["code"].startswith("DEV"):
            out.setdefault(f["code"], []).append(f)
    return out


def test_dev601_weight_only_int8_linear_into_add_on_mali(tmp_path):
    (f,) = dev_findings(residual_linear(True), tmp_path)["DEV601"]
    assert f["severity"] == "warning" and "LiteRT#9277" in f["message"] and "unverified here" in f["message"]
    assert f["nodes"] == [[0, 0], [0, 1]]
    assert "DEV601" not in dev_findings(residual_linear(False), tmp_path)
    assert "DEV601" not in dev_findings(residual_linear(True), tmp_path, families=("adreno",))


def test_dev602_batched_depth_to_space_on_adreno(tmp_path):
    (f,) = dev_findings(depth_to_space(4), tmp_path)["DEV602"]
    assert "batch 4" in f["message"] and "LiteRT#8459" in f["message"]
    assert "DEV602" not in dev_findings(depth_to_space(1), tmp_path)
    assert "DEV602" not in dev_findings(depth_to_space(4), tmp_path, families=("mali",))


def test_dev603_rank_3_attention_on_adreno_and_not_at_rank_4(tmp_path):
    (f,) = dev_findings(attention(3), tmp_path)["DEV603"]
    assert f["nodes"] == [[0, 0], [0, 2]] and "LiteRT#8619" in f["message"]
    assert "DEV603" not in dev_findings(attention(4), tmp_path)


@pytest.mark.parametrize("families, raised", [(("apple",), True), (("webgpu",), True), (("adreno",), True),
                                              (("mali",), False), ((), False)])
def test_dev605_fp16_activations_of_attention(families, raised, tmp_path):
    found = dev_findings(attention(4), tmp_path, families=families)
    assert ("DEV605" in found) is raised
    if raised:
        assert "FLOAT32 activations" in found["DEV605"][0]["message"]


def test_dev604_a_long_sum_for_every_family(tmp_path):
    for family in ("adreno", "mali", "apple", "webgpu"):
        (f,) = dev_findings(summed(32), tmp_path, families=(family,))["DEV604"]
        assert "1024 elements" in f["message"] and "LiteRT#9249" in f["message"]
    assert "DEV604" not in dev_findings(summed(8), tmp_path)


def test_no_family_no_device_findings(tmp_path):
    assert dev_findings(depth_to_space(4), tmp_path, families=()) == {}


def test_an_unknown_family_is_a_usage_error(tmp_path):
    path = depth_to_space(4).save(tmp_path / "m.tflite")
    with pytest.raises(GpucompatError, match="unknown GPU family 'nvidia'"):
        gpucompat.check(path, device_families=["nvidia"])
    r = run_cli("check", path, "--device", "nvidia")
    assert r.returncode == 2 and "unknown GPU family 'nvidia'" in r.stderr and "Traceback" not in r.stderr


def test_the_command_line_and_the_settings_file(tmp_path):
    path = depth_to_space(4).save(tmp_path / "m.tflite")
    r = run_cli("check", path, "--device", "adreno", "--format", "json", "--fail-on", "never")
    assert r.returncode == 0 and '"DEV602"' in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.gpucompat]\ndevice-family = ["adreno"]\n')
    r = run_cli("check", path, "--format", "json", "--fail-on", "never")
    assert '"DEV602"' in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.gpucompat]\ndevice-family = "intel"\n')
    r = run_cli("check", path)
    assert r.returncode == 2 and "unknown GPU family 'intel'" in r.stderr
