"""`[tool.gpucompat]` in the nearest pyproject.toml, found from the models' directory upwards.

Keys (dashes or underscores): profile, backend, max-delegated-partitions, no-quant, select, ignore,
fail-on, per-path-ignores (glob relative to the pyproject.toml's directory -> list of codes).
Command-line flags override the file. A bad file or key is a GpucompatError naming the key."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

from gpucompat.errors import GpucompatError

FAIL_LEVELS = ("error", "warning", "info", "never")
BACKENDS = ("cl", "gl", "metal")


@dataclass
class Config:
    """Settings of one run: the file's values, then the command line's."""

    profile: str | None = None
    backend: str | None = None
    max_delegated_partitions: int | None = None
    no_quant: bool | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: str | None = None
    per_path_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    root: str | None = None  # directory of the pyproject.toml the values came from
    source: str | None = None

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """Codes ignored for `path`: `ignore` plus every matching per-path entry."""
        codes = list(self.ignore)
        rel = os.path.relpath(os.path.abspath(path), self.root) if self.root else path
        for pattern, extra in self.per_path_ignores.items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.extend(extra)
        return tuple(codes)


def find_pyproject(start: str) -> str | None:
    """The nearest pyproject.toml with a [tool.gpucompat] table, from `start` upwards."""
    d = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate) and _has_table(candidate):
            return candidate
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def load(start: str) -> Config:
    """The configuration that applies to models under `start` (an empty one when none does)."""
    path = find_pyproject(start)
    return load_file(path) if path else Config()


def load_file(path: str) -> Config:
    """The [tool.gpucompat] table of the pyproject.toml at `path` (empty when it has none)."""
    return parse(_table(path), path)


def parse(table: dict, source: str) -> Config:
    """Validate a [tool.gpucompat] table into a Config; the first bad key raises."""
    cfg = Config(root=os.path.dirname(os.path.abspath(source)), source=source)
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        where = f"{source}: [tool.gpucompat] {raw_key}"
        if key in ("profile", "backend", "fail_on"):
            if not isinstance(value, str):
                raise GpucompatError(f"{where}: expected a string, got {value!r}")
            if key == "backend" and value not in BACKENDS:
                raise GpucompatError(f"{where}: expected one of {', '.join(BACKENDS)}, got {value!r}")
            if key == "fail_on" and value not in FAIL_LEVELS:
                raise GpucompatError(f"{where}: expected one of {', '.join(FAIL_LEVELS)}, got {value!r}")
            setattr(cfg, key, value)
        elif key == "max_delegated_partitions":
            if not isinstance(value, int) or isinstance(value, bool):
                raise GpucompatError(f"{where}: expected an integer, got {value!r}")
            cfg.max_delegated_partitions = value
        elif key == "no_quant":
            if not isinstance(value, bool):
                raise GpucompatError(f"{where}: expected true or false, got {value!r}")
            cfg.no_quant = value
        elif key in ("select", "ignore"):
            setattr(cfg, key, _codes(value, where))
        elif key == "per_path_ignores":
            if not isinstance(value, dict):
                raise GpucompatError(f"{where}: expected a table of glob = [codes], got {value!r}")
            cfg.per_path_ignores = {k: _codes(v, f"{where}.{k}") for k, v in value.items()}
        else:
            raise GpucompatError(f"{where}: unknown key (known: profile, backend, max-delegated-partitions, "
                                 f"no-quant, select, ignore, fail-on, per-path-ignores)")
    return cfg


def _codes(value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise GpucompatError(f"{where}: expected a list of rule codes or prefixes, got {value!r}")
    return tuple(v.upper() for v in value)


def _read(path: str) -> dict:
    import tomllib

    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise GpucompatError(f"{path}: cannot read: {e}") from None


def _has_table(path: str) -> bool:
    """Cheap test before parsing: an unrelated, even broken, pyproject.toml is skipped."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "[tool.gpucompat" in f.read()
    except OSError:
        return False


def _table(path: str) -> dict:
    table = _read(path).get("tool", {}).get("gpucompat", {})
    if not isinstance(table, dict):
        raise GpucompatError(f"{path}: [tool.gpucompat] must be a table")
    return table
