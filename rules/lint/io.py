"""IO family: what every inference pays at the CPU<->GPU boundary."""

from __future__ import annotations

from gpucompat.rules.lint import Finding, Rule

RGB_DOC = """\
## What it finds
A 3-channel 4-D model input (an RGB image) that is copied into a delegate kernel.

## Why it matters on the GPU
Delegate inputs live in CPU memory as BHWC and are converted to the GPU's slices of 4 channels on
every invoke: a 3-channel input is widened to 4 channels by an extra copy. The TFLite GPU docs
recommend feeding RGBA.

## Example
`serving_default_input [1, 224, 224, 3]` -> CONV_2D.

## How to fix
Export the model with a 4-channel input (RGBA, the 4th channel ignored by a zero filter slice)
and feed RGBA frames from the camera.

## Fix safety
An RGBA input changes the model's signature (`signature` safety): callers must feed 4 channels.

## References
tflite/delegates/gpu/delegate.cc GetTensorObject / SetInputsAndOutputs; TFLite GPU docs
"Image data channels".
"""

QUANT_IO_DOC = """\
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


def _rgb(result, analyses) -> list[Finding]:
    return [Finding("IO301", "info",
                    f"input {c.name!r} {c.shape} has 3 channels: widened to 4 on every invoke ({c.bytes} bytes)")
            for c in analyses.boundaries.crossings(lambda c: c.three_channels and c.graph_input)]


def _quantized(result, analyses) -> list[Finding]:
    return [Finding("IO302", "warning",
                    f"{c.dtype} tensor {c.name!r} {c.shape} crosses {'into' if c.direction == 'in' else 'out of'} "
                    f"the GPU and is converted on the CPU every invoke")
            for c in analyses.boundaries.crossings(lambda c: c.quantized)]


RULES = [
    Rule("IO301", "rgb-input", "info", "A 3-channel input is widened to 4 channels on every invoke.", RGB_DOC, _rgb,
         uses_analyses=True),
    Rule("IO302", "quantized-io", "warning", "A quantized tensor crossing the GPU boundary is converted on the CPU.",
         QUANT_IO_DOC, _quantized, uses_analyses=True),
]
