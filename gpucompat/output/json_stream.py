"""JSON written as it is encoded: the documents' structure indented, each object in a list on a
line of its own, encoded by the C encoder.

`json.dumps(doc, indent=2)` encodes in pure Python (the C encoder takes no indent) and returns the
whole text at once: for a 20,000-op model that is 1.8 s and a 26 MB string beside the records.
Here each element of the records' long lists (ops, tensors, findings) is one call of the C
encoder, made once (json.dumps makes one per call), and the text goes to its destination a few
hundred lines at a time."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from json import encoder

_ONE_LINE = json.JSONEncoder(separators=(", ", ": "), check_circular=False)
_KEY = json.JSONEncoder(check_circular=False)
INDENT = "  "
OPEN_LEVELS = 2  # a list this near the top (a document's models, SARIF's runs) lays out its objects too
BATCH = 256  # lines of a long list joined into one piece


def _one_line_encoder() -> Callable[[object], str]:
    """What `_ONE_LINE.encode` returns, from one C encoder made once: `encode` makes a new one at
    each call, a fifth of the time of a short record. Without the C encoder (another Python),
    `encode` itself."""
    if encoder.c_make_encoder is None:
        return _ONE_LINE.encode
    make = encoder.c_make_encoder(None, _ONE_LINE.default, encoder.encode_basestring_ascii, None,
                                  _ONE_LINE.key_separator, _ONE_LINE.item_separator, False, False, True)
    return lambda value: "".join(make(value, 0))


_encode = _one_line_encoder()


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
        if level < OPEN_LEVELS:
            first = True
            for item in value:
                yield ("\n" if first else ",\n") + inner
                yield from chunks(item, level + 1)
                first = False
        else:
            between = ",\n" + inner
            for start in range(0, len(value), BATCH):
                lead = "\n" + inner if start == 0 else between
                yield lead + between.join(map(_encode, value[start:start + BATCH]))
        yield "\n" + INDENT * level + "]"
    else:
        yield _encode(value)


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
