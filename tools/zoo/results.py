"""The zoo's judgements, one JSON record per model, kept in the cache (results.json) so the table can
be regenerated without judging again."""

from __future__ import annotations

import json
from pathlib import Path

from tools.zoo import cache


def path():
    """The results file."""
    return cache.root() / "results.json"


def load(where: Path | None = None) -> dict[str, dict]:
    """Model name -> its record, from `where` (default: the results file); empty when nothing was
    judged yet."""
    p = where or path()
    return json.loads(p.read_text()) if p.is_file() else {}


def save(records: dict[str, dict], where: Path | None = None) -> None:
    """Write every record to `where` (default: the results file), atomically."""
    cache.write_atomically(where or path(), json.dumps(records, indent=1, sort_keys=True).encode())


def failures_path():
    """Models the converter could not build: name -> why."""
    return cache.root() / "build_failures.json"


def note_failure(name: str, why: str | None) -> None:
    """Record (or, with None, clear) why the model `name` could not be built."""
    p = failures_path()
    found = json.loads(p.read_text()) if p.is_file() else {}
    if why is None:
        found.pop(name, None)
    else:
        found[name] = why
    cache.write_atomically(p, json.dumps(found, indent=1, sort_keys=True).encode())


def failures() -> dict[str, str]:
    """Name -> why, for every model the converter could not build."""
    p = failures_path()
    return json.loads(p.read_text()) if p.is_file() else {}


def numerics_path():
    """The numerics judgements (tools/zoo/numerics.py): name -> record."""
    return cache.root() / "numerics.json"


def load_numerics() -> dict[str, dict]:
    """Model name -> its numerics record; empty when none was judged yet."""
    p = numerics_path()
    return json.loads(p.read_text()) if p.is_file() else {}


def save_numerics(records: dict[str, dict]) -> None:
    """Write every numerics record, atomically."""
    cache.write_atomically(numerics_path(), json.dumps(records, indent=1, sort_keys=True).encode())


def llm_path():
    """The LLM exports' signature-by-signature judgements (tools/zoo/llm_judge.py): name -> record."""
    return cache.root() / "llm.json"
