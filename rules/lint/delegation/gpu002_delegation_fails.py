"""An accepted op fails when the GPU graph is built: the whole model runs on the CPU.

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

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("GPU002", name="delegation-fails", severity="error")
def delegation_fails(result, analyses) -> list[Finding]:
    """GPU002 per op whose Parse or kernel build fails the whole delegation."""
    return [Finding("GPU002", "error",
                    f"op code #{o.opcode} {o.op} fails when the GPU graph is built ({o.verdict.layer}): "
                    f"{o.verdict.reason} - the whole delegation fails and every op runs on the CPU",
                    ((o.subgraph, o.index),))
            for o in result.delegation_failure]
