"""Settings of every command: `[tool.gpucompat]` in the nearest pyproject.toml, found from the
models' directory upwards (or the file given with --config).

Keys are the commands' flag names (dashes or underscores). The top level holds what several
commands share: profile, backend (the delegate's API), max-delegated-partitions and no-quant (check,
fix, diff, report; verify takes profile), and check's select, ignore, fail-on and per-path-ignores
(glob relative to the pyproject.toml's directory -> list of codes). A `[tool.gpucompat.<command>]`
table (check, fix, verify, diff, report, confirm) holds that command's own keys and overrides the
top level for it; verify's own `runner` picks who runs the model (gpucompat/runners/).
Command-line flags override both. The whole table is validated whichever command runs: a bad key
or value is a GpucompatError naming it."""

from __future__ import annotations

import fnmatch
import logging
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from gpucompat.errors import GpucompatError

FAIL_LEVELS = ("error", "warning", "info", "never")
BACKENDS = ("cl", "gl", "metal")
PRECISIONS = ("fp32", "fp16")  # the executor's (gpucompat/opencl/runtime.py)

Check = Callable[[Any, str], Any]  # (value, where) -> the value to keep; raises GpucompatError


def _string(value, where):
    if not isinstance(value, str):
        raise GpucompatError(f"{where}: expected a string, got {value!r}")
    return value


def _choice(choices: tuple[str, ...]) -> Check:
    def check(value, where):
        if _string(value, where) not in choices:
            raise GpucompatError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
        return value
    return check


def _verify_runner(value, where):
    """verify's runner: a name in the runner table (gpucompat/runners/) that verify tests."""
    from gpucompat.runners import verify_choices

    return _choice(tuple(verify_choices()))(value, where)


def _integer(value, where):
    if not isinstance(value, int) or isinstance(value, bool):
        raise GpucompatError(f"{where}: expected an integer, got {value!r}")
    return value


def _number(value, where):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise GpucompatError(f"{where}: expected a non-negative number, got {value!r}")
    return float(value)


def _boolean(value, where):
    if not isinstance(value, bool):
        raise GpucompatError(f"{where}: expected true or false, got {value!r}")
    return value


def _names(value, where, what: str = "names") -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise GpucompatError(f"{where}: expected a list of {what}, got {value!r}")
    return tuple(value)


def _codes(value, where) -> tuple[str, ...]:
    return known_codes(tuple(v.upper() for v in _names(value, where, "rule codes or prefixes")), where)


def known_codes(codes: tuple[str, ...], where: str) -> tuple[str, ...]:
    """`codes` (rule codes or prefixes of them, upper case) when every one names a rule; else a
    GpucompatError naming the unknown ones and `where` they were given."""
    from gpucompat.rules.lint import unknown_codes

    unknown = unknown_codes(codes)
    if unknown:
        raise GpucompatError(f"{where}: unknown rule code or prefix {', '.join(unknown)} (gpucompat rules lists them)")
    return codes


def _profiles(value, where) -> str:
    from gpucompat.rules.support import registry

    for name in _string(value, where).split(","):
        if name.strip() not in registry.names():
            raise GpucompatError(f"{where}: unknown profile {name.strip()!r} (known: {', '.join(registry.names())})")
    return value


def _device_families(value, where) -> tuple[str, ...]:
    from gpucompat.rules.lint.device_reports.families import parse_families

    return parse_families(value, where)


def _per_path_ignores(value, where) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise GpucompatError(f"{where}: expected a table of glob = [codes], got {value!r}")
    return {k: _codes(v, f"{where}.{k}") for k, v in value.items()}


def _tolerances(value, where) -> dict[str, tuple[float, float]]:
    """verify's output-tolerance: a table of output name or index = [atol, rtol]."""
    if not isinstance(value, dict):
        raise GpucompatError(f"{where}: expected a table of output = [atol, rtol], got {value!r}")
    out = {}
    for name, pair in value.items():
        if not isinstance(pair, list) or len(pair) != 2:
            raise GpucompatError(f"{where}.{name}: expected [atol, rtol], got {pair!r}")
        out[str(name)] = (_number(pair[0], f"{where}.{name}"), _number(pair[1], f"{where}.{name}"))
    return out


_MODEL = {"profile": _profiles, "backend": _choice(BACKENDS), "max_delegated_partitions": _integer,
          "no_quant": _boolean}
_LINT = {"select": _codes, "ignore": _codes, "fail_on": _choice(FAIL_LEVELS), "per_path_ignores": _per_path_ignores,
         "device_family": _device_families}
TOP_LEVEL: dict[str, Check] = {**_MODEL, **_LINT}
# Each command's own keys, the ones its [tool.gpucompat.<command>] table takes.
COMMANDS: dict[str, dict[str, Check]] = {
    "check": TOP_LEVEL,
    "fix": {**_MODEL, "rewrite": _names, "skip": _names, "unsafe_fixes": _boolean, "no_verify": _boolean,
            "require_gpu_proof": _boolean, "fail_on": _choice(FAIL_LEVELS)},
    # verify's `backend` is the old spelling of `runner` (commands/verify.py notes it on stderr)
    "verify": {"profile": _profiles, "runner": _verify_runner, "backend": _verify_runner,
               "precision": _choice(PRECISIONS), "runs": _integer, "device": _string, "cache_dir": _string,
               "atol": _number, "rtol": _number, "output_tolerance": _tolerances, "localize": _boolean,
               "seed": _integer, "max_memory": _string, "allow_class_flips": _boolean},
    "diff": _MODEL,
    "report": _MODEL,
    "confirm": {"vulkan_dir": _string, "gl_dir": _string, "timeout": _number},
}
# The top-level keys each command takes when its own table does not set them.
INHERITED = {"check": TOP_LEVEL, "fix": _MODEL, "verify": {"profile"}, "diff": _MODEL, "report": _MODEL,
             "confirm": ()}


@dataclass
class Settings:
    """One command's settings from the file: its table's values over the shared top level."""

    command: str
    values: dict[str, Any] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)  # key -> the place in the file it came from
    root: str | None = None  # directory of the pyproject.toml the values came from

    def pick(self, key: str, flag: Any = None, default: Any = None) -> Any:
        """The value of `key`: the flag when given (not None), else the file's, else `default`."""
        if flag is not None:
            return flag
        return self.values.get(key, default)

    def profile(self, flag: str | None, default: str) -> str:
        """The profile a single-profile command runs with; a comma list from the file is an error
        naming the key (check is the command that compares profiles)."""
        name = self.pick("profile", flag, default)
        if flag is None and "," in name:
            raise GpucompatError(f"{self.where['profile']}: gpucompat {self.command} takes one profile "
                                 f"(set profile in [tool.gpucompat.{self.command}])")
        return name

    def ignored_for(self, path: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
        """Codes ignored for `path`: the file's `ignore`, every matching per-path entry, then
        `extra` (the --ignore flag adds to the file's)."""
        codes = list(self.values.get("ignore", ()))
        rel = os.path.relpath(os.path.abspath(path), self.root) if self.root else path
        for pattern, more in self.values.get("per_path_ignores", {}).items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.extend(more)
        return tuple(codes) + tuple(extra)


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


def settings(command: str, start: str, explicit: str | None = None) -> Settings:
    """`command`'s settings for models under `start`, or from the file `explicit` (--config); empty
    when no file applies."""
    path = explicit or find_pyproject(start)
    if not path:
        return Settings(command)
    logging.getLogger(__name__).info("settings: [tool.gpucompat] of %s", path)
    return parse(_table(path), path, command)


def parse(table: dict, source: str, command: str) -> Settings:
    """Validate a whole [tool.gpucompat] table (the first bad key raises) and keep `command`'s part."""
    top = _validate(table, TOP_LEVEL, source)
    out = Settings(command, root=os.path.dirname(os.path.abspath(source)))
    inherited = {k: top[k] for k in INHERITED[command] if k in top}
    for key, (value, where) in {**inherited, **top.get(command, ({}, ""))[0]}.items():
        out.values[key], out.where[key] = value, where
    return out


def _validate(table: dict, keys: dict[str, Check], source: str, name: str = "tool.gpucompat",
              nested: bool = True) -> dict[str, tuple[Any, str]]:
    """key -> (validated value, where it is); a command's table (when `nested`) maps to its own."""
    out = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if nested and key in COMMANDS:
            if not isinstance(value, dict):
                raise GpucompatError(f"{source}: [{name}.{raw_key}] must be a table of {key} settings")
            out[key] = (_validate(value, COMMANDS[key], source, f"{name}.{raw_key}", nested=False), name)
            continue
        where = f"{source}: [{name}] {raw_key}"
        if key not in keys:
            known = [k.replace("_", "-") for k in keys] + ([f"[{name}.{c}]" for c in COMMANDS] if nested else [])
            raise GpucompatError(f"{where}: unknown key (known: {', '.join(known)})")
        out[key] = (keys[key](value, where), where)
    return out


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
