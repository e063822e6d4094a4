"""A checkout laid out the way pip installs it, for benchmarks that run two versions side by side.

rules/, rewrites/, opencl/ and reports/ become gpucompat.rules, ... only through pyproject.toml's
package-dir mapping, so a checkout on PYTHONPATH does not import by itself (and an editable install
would fill in its own folders). The tree made here is links: gpucompat/'s entries, and each mapped
folder where the install puts it; nothing is written into the checkout."""

from __future__ import annotations

import os
import tomllib


def importable_tree(checkout: str, into: str) -> str:
    """`into`, made a directory whose gpucompat package is `checkout`'s, laid out as installed:
    put it first on PYTHONPATH to run that version."""
    with open(os.path.join(checkout, "pyproject.toml"), "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"].get("package-dir", {})
    package = os.path.join(into, "gpucompat")
    os.makedirs(package)
    for entry in os.listdir(os.path.join(checkout, "gpucompat")):
        os.symlink(os.path.join(checkout, "gpucompat", entry), os.path.join(package, entry))
    for name, folder in mapping.items():
        if name.count(".") == 1:  # gpucompat.X -> X/ (deeper packages sit inside those)
            os.symlink(os.path.join(checkout, folder), os.path.join(package, name.split(".")[1]))
    return into
