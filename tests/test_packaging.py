"""The package as pip installs it: every package folder of the source tree is shipped, rules/,
rewrites/, opencl/ and reports/ become gpucompat.rules, ... by packaging alone (pyproject.toml's
package-dir; nothing extends the package's path at run time), a plain install runs from any
directory, and the installed tree keeps the layering contract ([tool.importlinter])."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def setuptools_config() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def mapped_folders() -> dict[str, str]:
    """Top-level source folder -> the package it is installed as (gpucompat/ is itself)."""
    mapping = {"gpucompat": "gpucompat"}
    for name, folder in setuptools_config()["package-dir"].items():
        if "/" not in folder:
            mapping[folder] = name
    return mapping


def source_packages() -> set[str]:
    found = set()
    for top, name in mapped_folders().items():
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, os.path.join(ROOT, top))
                found.add(name if rel == "." else f"{name}.{rel.replace(os.sep, '.')}")
    return found


def test_every_package_is_listed_in_pyproject():
    config = setuptools_config()
    assert {"rules", "rewrites", "opencl", "reports"} <= set(mapped_folders())
    assert source_packages() <= set(config["packages"])
    for name in config["packages"]:
        if not os.path.isdir(os.path.join(ROOT, *name.split("."))):
            assert name in config["package-dir"], f"{name} is not mapped to its folder"


def test_only_the_package_folders_are_part_of_the_package():
    """fuzz/, bench/, tests/ and tools/ are no gpucompat.* modules (a run-time extension of the
    package's path made them so)."""
    import gpucompat
    import gpucompat.rules

    assert os.path.dirname(gpucompat.rules.__file__) != os.path.dirname(gpucompat.__file__)
    for name in ("fuzz", "bench", "tests", "tools"):
        assert importlib.util.find_spec(f"gpucompat.{name}") is None, name


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> str:
    """A plain (not editable) `pip install` of the source tree into a directory of its own: the
    sources pip needs are copied first, so the build leaves nothing in the checkout."""
    work = tmp_path_factory.mktemp("install")
    source, target = work / "source", work / "site"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), source / name)
    for folder in mapped_folders():
        shutil.copytree(os.path.join(ROOT, folder), source / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                        str(source)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return str(target)


def run_installed(site: str, argv: list[str], cwd) -> subprocess.CompletedProcess:
    """`argv` with the installed copy first on the path (before any editable install)."""
    env = {**os.environ, "PYTHONPATH": site}
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_a_plain_install_imports_its_layers_and_checks_from_another_directory(installed, tmp_path):
    probe = ("import gpucompat, gpucompat.rules.support.registry, gpucompat.rules.support.profiles.gpu_current, "
             "gpucompat.rewrites, gpucompat.opencl, gpucompat.reports; print(gpucompat.__file__)")
    r = run_installed(installed, [sys.executable, "-c", probe], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == os.path.join(installed, "gpucompat", "__init__.py")
    calibration = os.path.join(installed, "gpucompat", "rules", "support", "calibration")
    assert any(n.endswith(".json") for n in os.listdir(calibration))
    assert any(n.endswith(".cl") for n in os.listdir(os.path.join(installed, "gpucompat", "opencl")))

    model = os.path.join(ROOT, "examples", "models", "segmenter.tflite")
    script = os.path.join(installed, "bin", "gpucompat")
    r = run_installed(installed, [script, "check", model, "--fail-on", "never", "--html", "report.html"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "segmenter.tflite" in r.stdout
    with open(tmp_path / "report.html") as f:
        assert "<html" in f.read(4096).lower()


def test_the_installed_tree_keeps_the_layers(installed):
    """The [tool.importlinter] contract on the installed tree, where the mapped folders sit inside
    the package (an editable install leaves them outside, where the import graph cannot see them).
    lint-imports puts its working directory first on the path: the installed copy's directory."""
    lint = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True, no_logo=True))")
    r = run_installed(installed, [sys.executable, "-c", lint, os.path.join(ROOT, "pyproject.toml")], installed)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "layers KEPT" in r.stdout
