"""Which operators have side effects (state, variables, control flow), so cleanup keeps them and
the partitioner chains them in order like the runtime does."""

from gpucompat.ir import opcodes
from gpucompat.ir.nodes import Op

_STATEFUL = {
    opcodes.BUILTIN[n]
    for n in (
        "ASSIGN_VARIABLE", "READ_VARIABLE", "VAR_HANDLE", "CALL_ONCE", "HASHTABLE",
        "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "RANDOM_STANDARD_NORMAL",
        "RANDOM_UNIFORM", "MULTINOMIAL", "WHILE", "IF",
    )
    if n in opcodes.BUILTIN
}


def has_side_effect(op: Op) -> bool:
    """True for ops the runtime treats as possibly having side effects (stateful or variable-
    mutating ops, control flow); cleanup never removes them."""
    return op.code.builtin in _STATEFUL or any(op.fb.mutatingVariableInputs or ())
