"""The elementwise functions (linked.cl's `unary` and `binary`) and their codes: the one table.

A code is a function's position in its tuple. Every program starts with them as #defines
(`#define UNARY_TANH 10`), which linked.cl's switches name, so the kernels and the lowerings
(opencl/ops/elementwise.py) read the same table; a code with no case in linked.cl computes NaN
(its `default:`), never a silent identity, and a case naming no code does not compile.
"""

from __future__ import annotations

UNARY_FUNCTIONS = ("IDENTITY", "ABS", "COS", "SIN", "EXP", "LOG", "NEG", "RSQRT", "SQRT", "SQUARE", "TANH",
                   "LOGISTIC", "RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "ELU", "HARD_SWISH", "LEAKY_RELU",
                   "FLOOR", "SIGN", "GELU", "CAST_TO_INT", "CAST_TO_BOOL", "CEIL", "LOGICAL_NOT", "ROUND")
BINARY_FUNCTIONS = ("ADD", "SUB", "MUL", "DIV", "POW", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV",
                    "FLOOR_MOD", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL",
                    "LOGICAL_AND", "LOGICAL_OR", "PRELU", "ATAN2")
# Two-input functions whose operands can trade places without changing a bit of the result (IEEE
# sums and products are correctly rounded, fmax / fmin and the comparisons are symmetric).
COMMUTATIVE = ("ADD", "MUL", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "EQUAL", "NOT_EQUAL", "LOGICAL_AND",
               "LOGICAL_OR")

# TFLite op -> the function computing it (CAST picks CAST_TO_INT / CAST_TO_BOOL by its output type:
# ops/elementwise.py unary_code). Every other one-input function is named after its op.
UNARY_OPS = {"CAST": "IDENTITY", "DEQUANTIZE": "IDENTITY", "QUANTIZE": "IDENTITY",
             **{f: f for f in UNARY_FUNCTIONS if f not in ("IDENTITY", "CAST_TO_INT", "CAST_TO_BOOL")}}


def unary(function: str) -> int:
    """The code of a one-input function."""
    return UNARY_FUNCTIONS.index(function)


def binary(function: str) -> int:
    """The code of a two-input function (named as its op)."""
    return BINARY_FUNCTIONS.index(function)


def preamble() -> str:
    """The #defines of every code, put in front of every program (opencl/programs.py)."""
    return "\n".join([*(f"#define UNARY_{f} {i}" for i, f in enumerate(UNARY_FUNCTIONS)),
                      *(f"#define BINARY_{f} {i}" for i, f in enumerate(BINARY_FUNCTIONS))])
