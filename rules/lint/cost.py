"""PERF family: GPU time spent without arithmetic (reshape-like ops) or on padding channels."""

from __future__ import annotations

from gpucompat.rules.lint import Finding, Rule

WASTE_THRESHOLD = 0.25  # PERF202 fires when a quarter or more of the stored elements are padding

RESHAPE_DOC = """\
## What it finds
Data-movement ops on the GPU that cost time without doing arithmetic: SPACE_TO_BATCH_ND,
BATCH_TO_SPACE_ND, SPACE_TO_DEPTH, DEPTH_TO_SPACE, TRANSPOSE, GATHER, RESHAPE between channel
counts that are not both multiples of 4, and CONCATENATION off the channel axis. The message gives
the bytes the op writes per inference.

## Why it matters on the GPU
The delegate stores tensors in slices of 4 channels; these ops re-shuffle every element across
slices. The TFLite GPU docs name them as expensive and advise removing them. A RESHAPE whose
channel counts are both multiples of 4 takes the cheap whole-slice kernel and is not reported.

## Example
`RESHAPE [1, 4, 4, 6] -> [1, 16, 6]`: channels 6 -> 6, the generic per-element kernel runs.

## How to fix
Remove the op in the source model (keep the layout NHWC end to end, concatenate on channels,
keep channel counts multiples of 4). For SPACE_TO_BATCH_ND -> conv -> BATCH_TO_SPACE_ND (a dilated
convolution exported with a dynamic batch), `gpucompat fix` applies `fold-space-to-batch`.

## Fix safety
fold-space-to-batch is `equivalent`: the dilated conv sums the same products, possibly in another
order.

## References
tflite/g3doc/performance/gpu.md "Reshape operations"; tflite/delegates/gpu/common/selectors/
operation_selector.cc SelectReshape.
"""

WASTE_DOC = f"""\
## What it finds
Models where at least {WASTE_THRESHOLD:.0%} of the elements the GPU stores are channel padding:
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


def _reshape_like(result, analyses) -> list[Finding]:
    return [Finding("PERF201", "warning",
                    f"op {h.subgraph}:{h.index} {h.detail}; {h.bytes_moved} bytes per inference"
                    + (f" (fix: {h.fix})" if h.fix else ""),
                    ((h.subgraph, h.index),))
            for h in analyses.hotspots if h.placement == "gpu"]


def _padding(result, analyses) -> list[Finding]:
    cp = analyses.channel_padding
    if cp.waste_ratio < WASTE_THRESHOLD:
        return []
    worst = cp.tensors[0]
    return [Finding("PERF202", "warning",
                    f"{cp.waste_ratio:.0%} of the elements stored on the GPU are channel padding "
                    f"({cp.padded_elements - cp.useful_elements} of {cp.padded_elements}); worst tensor "
                    f"{worst.name!r} {worst.shape} (C={worst.channels})")]


RULES = [
    Rule("PERF201", "reshape-like-op", "warning", "A data-movement op costs GPU time without arithmetic.",
         RESHAPE_DOC, _reshape_like, fix="fold-space-to-batch", uses_analyses=True),
    Rule("PERF202", "channel-padding-waste", "warning",
         "A large share of the GPU's stored elements is channel padding.", WASTE_DOC, _padding, uses_analyses=True),
]
