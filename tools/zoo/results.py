"""The zoo's judgements, one JSON record per model, kept in the cache (results.json) so the table can
be regenerated without judging again."""

from __future__ import annotations

import json

from tools.zoo import cache


def path():
    """The results file."""
    return cache.root() / "results.json"


def load() -> dict[str, dict]:
    """Model name -> its record (empty when nothing was judged yet)."""
    p = path()
    return json.loads(p.read_text()) if p.is_file() else {}


def save(records: dict[str, dict]) -> None:
    """Write every record, atomically."""
    cache.write_atomically(path(), json.dumps(records, indent=1, sort_keys=True).encode())
