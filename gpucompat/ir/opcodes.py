"""Builtin operator codes: the numbers the runtime prints ("op code #42") and their names."""

from ai_edge_litert import schema_py_generated as fb

BUILTIN: dict[str, int] = {
    k: v for k, v in vars(fb.BuiltinOperator).items() if not k.startswith("_") and isinstance(v, int)
}
NAMES: dict[int, str] = {v: k for k, v in BUILTIN.items()}
CUSTOM = BUILTIN["CUSTOM"]


def name(code: int) -> str:
    """The schema's name of a builtin op code (42 -> "DIV"), "UNKNOWN_<n>" when not in the schema."""
    return NAMES.get(code, f"UNKNOWN_{code}")


def code(op_name: str) -> int:
    """The builtin op code of a name ("DIV" -> 42); raises KeyError for an unknown name."""
    return BUILTIN[op_name.upper()]
