"""Text from a model, made safe to show: names, custom codes and metadata are the model author's
bytes, and a terminal or a line-based format must not replay their control characters."""

from __future__ import annotations

import unicodedata

# Categories that draw nothing and can act on a terminal or split a line: control characters (ESC,
# BEL, vertical tab, form feed, NEL, ...), format characters (bidirectional overrides), surrogates,
# and the line and paragraph separators that str.splitlines() breaks on.
_UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_SCALARS = frozenset({int, float, bool, type(None)})  # values a record holds that are already safe


def printable(text: str) -> str:
    """`text` with every control, format or separator character written as a Python escape
    (ESC -> \\x1b, U+2028 -> \\u2028), so it shows as what it is instead of acting."""
    if text.isprintable():
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _UNSHOWN else c for c in text)


def printable_record(value):
    """A copy of a JSON-like record (dicts, lists, strings, numbers) with every string made
    printable, for the renderers that write text for people or line-based tools."""
    kind = type(value)  # exact types first: a 20,000-op record has a million values
    if kind in _SCALARS:
        return value
    if kind is str:
        return value if value.isprintable() else printable(value)
    if kind is dict:  # numbers are taken as they are here, without a call each
        return {k: v if type(v) in _SCALARS else printable_record(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [v if type(v) in _SCALARS else printable_record(v) for v in value]
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {k: printable_record(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [printable_record(v) for v in value]
    return value
