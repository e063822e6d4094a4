"""GPUCOMPAT_DEBUG=N: a numeric level of diagnostics on stderr, never on stdout (which stays the
command's output); a level that is not a number is exit 2 naming the variable."""

import json
import re

import pytest

from cli import gpucompat


@pytest.mark.opencl
def test_level_3_names_every_program_build_on_stderr(models, monkeypatch):
    monkeypatch.setenv("GPUCOMPAT_DEBUG", "3")
    r = gpucompat("verify", models.path("two_gathers"), "--runs", "1", "--cache-dir", "", "--format", "json")
    assert r.returncode == 0, r.stderr
    builds = [line for line in r.stderr.splitlines() if line.startswith("[gpucompat] building OpenCL kernels ")]
    # each program names the kernels it holds (family.kernel), the device, and its compile time
    assert builds and all(re.fullmatch(r"\[gpucompat\] building OpenCL kernels \w+\.\w+(, \w+\.\w+)* for .+: "
                                       r"compiled in \d+\.\d\d s", line) for line in builds), builds
    assert "[gpucompat] OpenCL device: " in r.stderr
    assert json.loads(r.stdout)["passed"] is True  # stdout is still the JSON document alone


def test_level_1_names_the_settings_file_and_0_is_quiet(models, monkeypatch, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gpucompat]\nfail-on = 'never'\n")
    model = tmp_path / "m.tflite"
    model.write_bytes(open(models.path("two_gathers"), "rb").read())
    monkeypatch.setenv("GPUCOMPAT_DEBUG", "1")
    r = gpucompat("check", str(model))
    assert r.returncode == 0 and f"[gpucompat] settings: [tool.gpucompat] of {tmp_path / 'pyproject.toml'}" in r.stderr
    monkeypatch.setenv("GPUCOMPAT_DEBUG", "0")
    assert gpucompat("check", str(model)).stderr == ""


def test_a_level_that_is_not_a_number_is_exit_2(models, monkeypatch):
    monkeypatch.setenv("GPUCOMPAT_DEBUG", "yes")
    r = gpucompat("check", models.path("two_gathers"))
    assert r.returncode == 2 and "GPUCOMPAT_DEBUG='yes'" in r.stderr and r.stdout == ""
