"""A quantized tensor crossing the GPU boundary is converted on the CPU.

## What it finds
int8 / uint8 tensors that cross a CPU<->GPU boundary.

## Why it matters on the GPU
The GPU computes in float: each quantized tensor entering a delegate kernel is dequantized on the
CPU, and each leaving it is quantized again, on every invoke, on top of the copy itself.

## Example
A full-integer model with int8 input `[1, 224, 224, 3]`: 150 KB dequantized per frame.

## How to fix
Convert with float inputs and outputs (`inference_input_type = tf.float32`, the converter's
default) when the model targets the GPU; keep int8 I/O for CPU/NPU builds.

## Fix safety
Not applicable: the I/O types are part of the model's signature.

## References
tflite/delegates/gpu/delegate.cc DelegateKernel::Invoke (DequantizeInputs, QuantizeOutputs); TFLite
GPU docs.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("IO302", name="quantized-io", severity="warning", uses_analyses=True)
def quantized(result, analyses) -> list[Finding]:
    """IO302 per quantized tensor crossing the CPU<->GPU boundary."""
    return [Finding("IO302", "warning",
                    f"{c.dtype} tensor {c.name!r} {c.shape} crosses {'into' if c.direction == 'in' else 'out of'} "
                    f"the GPU and is converted on the CPU every invoke")
            for c in analyses.boundaries.crossings(lambda c: c.quantized)]
