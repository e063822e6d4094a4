"""A large share of the GPU's stored elements is channel padding.

## What it finds
Models where at least 25% of the elements the GPU stores are channel padding:
tensors whose channel count is not a multiple of 4.

## Why it matters on the GPU
Every GPU tensor is stored as ceil(C/4) slices of 4 channels, so C = 5 costs what C = 8 does in
memory and bandwidth, and convolutions compute the padded lanes too. OpenCL may store a tensor
with C < 4 as a single unpadded texture; the waste of those tensors is an upper bound.

## Example
A [1, 112, 112, 6] activation stores 8 channels: 25% of its memory is padding.

## How to fix
Choose channel counts that are multiples of 4 when designing the model (e.g. 8 instead of 6),
or feed RGBA instead of RGB. `gpucompat check` ranks the worst tensors and ops.

## Fix safety
Not applicable: changing channel counts changes the model.

## References
tflite/delegates/gpu/common/task/tensor_desc.cc GetSizeInBytesForShape; common/gpu_model.cc
(single-texture storage for C < 4); TFLite GPU docs "Image data channels".
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule

WASTE_THRESHOLD = 0.25


@rule("PERF202", name="channel-padding-waste", severity="warning", uses_analyses=True)
def padding(result, analyses) -> list[Finding]:
    """PERF202 when the share of channel padding in the GPU's stored elements reaches WASTE_THRESHOLD."""
    cp = analyses.channel_padding
    if cp.waste_ratio < WASTE_THRESHOLD:
        return []
    worst = cp.tensors[0]
    return [Finding("PERF202", "warning",
                    f"{cp.waste_ratio:.0%} of the elements stored on the GPU are channel padding "
                    f"({cp.padded_elements - cp.useful_elements} of {cp.padded_elements}); worst tensor "
                    f"{worst.name!r} {worst.shape} (C={worst.channels})")]
