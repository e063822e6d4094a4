"""Every package folder of the source tree is shipped by a plain `pip install .`."""

import os
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAPPED = {"rules": "gpucompat.rules", "rewrites": "gpucompat.rewrites", "opencl": "gpucompat.opencl",
          "reports": "gpucompat.reports", "gpucompat": "gpucompat"}


def source_packages() -> set[str]:
    found = set()
    for top, name in MAPPED.items():
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            if "__init__.py" in files:
                rel = os.path.relpath(dirpath, os.path.join(ROOT, top))
                found.add(name if rel == "." else f"{name}.{rel.replace(os.sep, '.')}")
    return found


def test_every_package_is_listed_in_pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["setuptools"]
    assert source_packages() <= set(config["packages"])
    for name in config["packages"]:
        top = name.split(".")[1] if name.count(".") else name
        if top in MAPPED and MAPPED[top] != "gpucompat" and name != "gpucompat":
            assert name in config["package-dir"], f"{name} is not mapped to its folder"


def test_installed_package_has_the_mapped_folders():
    import gpucompat.opencl
    import gpucompat.reports
    import gpucompat.rewrites
    import gpucompat.rules.support.profiles.gpu_current  # noqa: F401


def test_python_m_from_the_checkout_finds_the_mapped_folders(tmp_path):
    """`python -m gpucompat` in the repository root imports the source folder, not the installed
    copy; its mapped subpackages (rules/, rewrites/, ...) must still be found."""
    import subprocess
    import sys

    probe = "import gpucompat.rules.support.registry, gpucompat.rewrites, gpucompat.opencl; print(gpucompat.__file__)"
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == os.path.join(ROOT, "gpucompat", "__init__.py")
