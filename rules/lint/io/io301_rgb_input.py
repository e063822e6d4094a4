"""A 3-channel input is widened to 4 channels on every invoke.

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

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("IO301", name="rgb-input", severity="info", uses_analyses=True)
def rgb(result, analyses) -> list[Finding]:
    """IO301 per 3-channel model input copied into a delegate kernel."""
    return [Finding("IO301", "info",
                    f"input {c.name!r} {c.shape} has 3 channels: widened to 4 on every invoke ({c.bytes} bytes)")
            for c in analyses.boundaries.crossings(lambda c: c.three_channels and c.graph_input)]
