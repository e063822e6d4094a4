"""A data-movement op costs GPU time without arithmetic.

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

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("PERF201", name="reshape-like-op", severity="warning", fix="fold-space-to-batch", uses_analyses=True)
def reshape_like(result, analyses) -> list[Finding]:
    """PERF201 per data-movement hotspot the GPU runs."""
    return [Finding("PERF201", "warning",
                    f"op {h.subgraph}:{h.index} {h.detail}; {h.bytes_moved} bytes per inference"
                    + (f" (fix: {h.fix})" if h.fix else ""),
                    ((h.subgraph, h.index),))
            for h in analyses.hotspots if h.placement == "gpu"]
