"""GPU family: ops the delegate does not take, and failures that stop the whole delegation."""

from __future__ import annotations

from collections import defaultdict

from gpucompat.rules.lint import Finding, Rule

UNSUPPORTED_OP_DOC = """\
## What it finds
Ops the delegate rejects when it partitions the graph (no GPU implementation, a version above the
parser's cap, an unsupported parameter, or a runtime tensor type the GPU does not take).

## Why it matters on the GPU
A rejected op runs on the CPU. It splits the graph: every split costs a synchronous CPU<->GPU
round trip per inference, and with the default `max_delegated_partitions=1` only the largest GPU
partition is delegated at all.

## Example
`GATHER_ND` between two convolutions: `op code #107 GATHER_ND: Operation is not supported.`

## How to fix
Replace the op with supported ones in the source model, or run `gpucompat fix`, which substitutes
equivalents where one exists. `gpucompat check` prints what accepting each rejected op would gain.

## Fix safety
Depends on the rewrite; see `gpucompat fix --dry-run`.

## References
tflite/delegates/gpu/common/model_builder.cc (GetOpsToReplace, IsAllAllowedTensors);
tflite/tools/versioning/gpu_compatibility.cc.
"""

DELEGATION_FAILS_DOC = """\
## What it finds
Ops the delegate accepts when partitioning but cannot build: a Parse-time rejection (identical
inputs to SUB/DIV/..., a runtime scalar, a non-constant parameter) or a missing kernel on the
chosen backend.

## Why it matters on the GPU
The delegate's kernel fails to initialise, the interpreter restores the original execution plan,
and every op of the model runs on the CPU: "Restored original execution plan after delegate
application failure."

## Example
`SUB(x, x)` in the delegated partition: "No support of few identical inputs in the same operation."

## How to fix
Rewrite the op in the source model (e.g. `x - x` as a constant zero) or choose a backend that has
the kernel.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/delegate.cc (DelegateKernelCore::Setup), tflite/core/subgraph.cc.
"""

DYNAMIC_DOC = """\
## What it finds
A tensor whose shape is only known while the model runs (a RESHAPE whose shape is computed at
runtime, WHERE, ...).

## Why it matters on the GPU
The GPU delegate supports only static-sized tensors: the interpreter refuses to apply it, so
nothing in that subgraph runs on the GPU.

## Example
`RESHAPE(x, PACK(STRIDED_SLICE(SHAPE(x)), ...))` from a model exported with a dynamic batch.

## How to fix
`gpucompat fix --unsafe-fixes` (or `--input-shape NAME=1,224,224,3`) applies `freeze-shapes`:
the batch becomes 1 (other dynamic dimensions are named with `--input-shape`), every tensor gets
its static shape and the shape computation folds into constants. Or export with a fixed batch
size (a concrete input signature) so that the converter folds it.

## Fix safety
signature: the fixed model accepts the frozen input shape only. It is verified against the
original run at that shape. A shape that depends on input values (WHERE, a RESHAPE to a shape
computed from the data) cannot be frozen: the rewrite refuses and names the op.

## References
tflite/core/subgraph.cc ModifyGraphWithDelegateImpl.
"""


def _unsupported(result, analyses) -> list[Finding]:
    groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for o in result.ops:
        v = o.verdict
        if not v.ok and v.layer == "partition":
            groups[(o.op, o.opcode, v.reason)].append((o.subgraph, o.index))
    return [Finding("GPU001", "error", f"op code #{code} {op}: {reason} ({len(nodes)} op(s) run on the CPU)",
                    tuple(nodes))
            for (op, code, reason), nodes in groups.items()]


def _delegation_fails(result, analyses) -> list[Finding]:
    return [Finding("GPU002", "error",
                    f"op code #{o.opcode} {o.op} fails when the GPU graph is built ({o.verdict.layer}): "
                    f"{o.verdict.reason} - the whole delegation fails and every op runs on the CPU",
                    ((o.subgraph, o.index),))
            for o in result.delegation_failure]


def _dynamic(result, analyses) -> list[Finding]:
    return [Finding("GPU003", "error", f"subgraph {s.index}: {s.gate} - nothing in this subgraph is delegated")
            for s in result.subgraphs if s.gate]


RULES = [
    Rule("GPU001", "unsupported-op", "error", "An op the GPU delegate rejects runs on the CPU.",
         UNSUPPORTED_OP_DOC, _unsupported),
    Rule("GPU002", "delegation-fails", "error",
         "An accepted op fails when the GPU graph is built: the whole model runs on the CPU.",
         DELEGATION_FAILS_DOC, _delegation_fails),
    Rule("GPU003", "dynamic-tensor", "error", "A dynamic-sized tensor stops delegation of its subgraph.",
         DYNAMIC_DOC, _dynamic, fix="freeze-shapes"),
]
