"""A dynamic-sized tensor stops delegation of its subgraph.

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

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("GPU003", name="dynamic-tensor", severity="error", fix="freeze-shapes")
def dynamic(result, analyses) -> list[Finding]:
    """GPU003 per subgraph the dynamic-tensor gate keeps off the GPU."""
    return [Finding("GPU003", "error", f"subgraph {s.index}: {s.gate} - nothing in this subgraph is delegated")
            for s in result.subgraphs if s.gate]
