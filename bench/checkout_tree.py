"""A checkout laid out the way pip installs it, for benchmarks that run two versions side by side.

rules/, rewrites/, opencl/ and reports/ become gpucompat.rules, ... only through pyproject.toml's
package-dir mapping, so a checkout on PYTHONPATH does not import by itself (and an editable install
would fill in its own folders). The tree made here is links: gpucompat/'s entries, and each mapped
folder where the install puts it; nothing is written into the checkout."""

from __future__ import annotations

import os
import tomllib


def mapped_folders(checkout: str) -> dict[str, str]:
    """The folders of `checkout` that pip installs inside gpucompat/, by the name they get there
    ("rules": "<checkout>/rules", ...; deeper packages sit inside those)."""
    with open(os.path.join(checkout, "pyproject.toml"), "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"].get("package-dir", {})
    return {name.split(".")[1]: os.path.join(checkout, folder) for name, folder in mapping.items()
            if name.count(".") == 1}


def importable_tree(checkout: str, into: str) -> str:
    """`into`, made a directory whose gpucompat package is `checkout`'s, laid out as installed:
    put it first on PYTHONPATH to run that version."""
    package = os.path.join(into, "gpucompat")
    os.makedirs(package)
    for entry in os.listdir(os.path.join(checkout, "gpucompat")):
        os.symlink(os.path.join(checkout, "gpucompat", entry), os.path.join(package, entry))
    for name, folder in mapped_folders(checkout).items():
        os.symlink(folder, os.path.join(package, name))
    return into
