"""An op cannot be prepared at the stored input shapes: the model cannot run at all.

## What it finds
An op the interpreter cannot prepare at the model's stored input shapes: a VALID convolution or
pooling window wider than its input, operands that do not broadcast, a RESHAPE or
FULLY_CONNECTED whose element counts do not divide. Typical of a model whose input signature has
a dynamic (-1) dimension stored as 1, such as an audio model stored as [1, 1].

## Why it matters on the GPU
The runtime prepares every op before a delegate sees the graph. The prepare fails, so the model
cannot run at all at that shape, on the GPU or the CPU ("Node number N (OP) failed to prepare.").
A window that fits its input exactly nowhere gives an output 0 wide instead: prepare accepts it,
and LiteRT's GPU accelerator then crashes compiling the model (litert-mldrift).

## Example
Input [1, 1] (signature [-1, -1]) -> EXPAND_DIMS -> CONV_2D with a 512-wide VALID kernel.

## How to fix
Run the model at the shape the app feeds: `gpucompat fix --input-shape NAME=1,16000` freezes the
input at that shape (freeze-shapes), and `check` then judges the frozen model. Or export with
a concrete input signature.

## Fix safety
signature: the fixed model accepts the frozen input shape only.

## References
tflite/core/subgraph.cc PrepareOpsStartingAt; tflite/kernels/padding.h ComputeOutSize.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("GPU006", name="unpreparable", severity="error", fix="freeze-shapes")
def unpreparable(result, analyses) -> list[Finding]:
    """GPU006 for the op the interpreter cannot prepare at the stored input shapes."""
    f = result.prepare_failure
    if f is None:
        return []
    names = " ".join(f"--input-shape {name}=..." for name in f.dynamic_inputs)
    what = ("has an output without elements at the stored input shapes: {}. The GPU accelerator crashes "
            "compiling the model at that shape" if f.empty else
            "cannot be prepared at the stored input shapes: {}. The model cannot run at all at that shape "
            f"({f.runtime_message})").format(f.reason)
    how = (f"freeze it at the shape the app feeds: `gpucompat fix {names}`" if f.dynamic_inputs else
           "no input has a dynamic dimension, so the model itself is malformed: re-export it")
    return [Finding("GPU006", "error", f"op#{f.index} {f.op} {what}; {how}", ((f.subgraph, f.index),))]
