"""Child processes that see a package as not installed (as on an install without an extra)."""

import os


def pythonpath_without(directory, name: str, why: str = "") -> str:
    """A PYTHONPATH (the current one after `directory`) on which importing `name` fails as it does
    for a package that is not installed: `directory` gets a module raising ModuleNotFoundError
    (its message followed by `why`, when given)."""
    message = f"No module named '{name}'" + (f" ({why})" if why else "")
    (directory / f"{name}.py").write_text(f"raise ModuleNotFoundError({message!r}, name={name!r})\n")
    return os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH")) if p)
