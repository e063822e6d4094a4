"""Child processes that see a package as not installed (as on an install without an extra)."""

import os


def pythonpath_without(directory, name: str) -> str:
    """A PYTHONPATH (the current one after `directory`) on which importing `name` fails as it does
    for a package that is not installed: `directory` gets a module raising ModuleNotFoundError."""
    (directory / f"{name}.py").write_text(f"raise ModuleNotFoundError(\"No module named '{name}'\", name='{name}')\n")
    return os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH")) if p)
