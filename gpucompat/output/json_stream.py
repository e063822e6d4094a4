"""JSON written as it is encoded: the documents' structure indented, each object in a list on a
line of its own, encoded by the C encoder.

`json.dumps(doc, indent=2)` encodes in pure Python (the C encoder takes no indent) and returns the
whole text at once: for a 20,000-op model that is 1.8 s and a 26 MB string beside the records.
Here the records' long lists (ops, tensors, findings) cost one C call per element and the text
goes to its destination a line at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator

_ONE_LINE = json.JSONEncoder(separators=(", ", ": "), check_circular=False)
_KEY = json.JSONEncoder(check_circular=False)
INDENT = "  "
OPEN_LEVELS = 2  # a list this near the top (a document's models, SARIF's runs) lays out its objects too


def chunks(value, level: int = 0) -> Iterator[str]:
    """The JSON text of `value` in pieces: objects and lists of objects are laid out over lines
    (two spaces a level); an object inside a list deeper than OPEN_LEVELS, and any list of plain
    values, is one line."""
    if isinstance(value, dict) and value:
        inner = INDENT * (level + 1)
        yield "{"
        first = True
        for key, item in value.items():
            yield ("\n" if first else ",\n") + inner + _key(key) + ": "
            yield from chunks(item, level + 1)
            first = False
        yield "\n" + INDENT * level + "}"
    elif isinstance(value, (list, tuple)) and value and any(isinstance(v, (dict, list, tuple)) for v in value):
        inner = INDENT * (level + 1)
        yield "["
        first = True
        for item in value:
            yield "\n" if first else ",\n"
            if level < OPEN_LEVELS:
                yield inner
                yield from chunks(item, level + 1)
            else:
                yield inner + _ONE_LINE.encode(item)
            first = False
        yield "\n" + INDENT * level + "]"
    else:
        yield _ONE_LINE.encode(value)


def _key(key) -> str:
    """An object key as json.dumps writes it: strings as they are, numbers, booleans and None
    by their JSON spelling, in quotes."""
    if isinstance(key, str):
        return _KEY.encode(key)
    if key is None or isinstance(key, (bool, int, float)):
        return _KEY.encode(_KEY.encode(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def lines(value) -> Iterator[str]:
    """The document's text, ending with a newline, in pieces of about a line."""
    yield from chunks(value)
    yield "\n"
