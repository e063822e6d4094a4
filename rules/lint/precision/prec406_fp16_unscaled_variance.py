"""A sum of squares of unscaled values (LayerNorm variance) may overflow fp16.

## What it finds
Without inputs: GPU-placed MEAN / SUM ops over squares of unscaled values (SQUARED_DIFFERENCE,
SQUARE, MUL(x, x)): the variance of a LayerNorm as TensorFlow's converter writes it (MEAN ->
SQUARED_DIFFERENCE -> MEAN -> RSQRT), or any sum of squares. Whether the values get large enough
is for data to confirm: `gpucompat check MODEL --inputs data.npz` (PREC403).

## Why it matters on the GPU
At fp16 the squares pass 65504 once |x - mean| reaches 256: the variance becomes inf and the
normalised output its beta (PREC403). Rows that large are common in transformers' residual streams.

## Example
`op#3 MEAN averages the squares of op#2 SQUARED_DIFFERENCE (LayerNorm over 'x')`.

## How to fix
`gpucompat fix MODEL --rewrite fp16-safe-layernorm` rewrites the converter's LayerNorm into the scaled
form (S = max(max|x| / 8, 1) per row, xs = x / S, the variance of xs, eps / S^2), equivalent in
fp32 and right at fp16. Other sums of squares: scale first.

## Fix safety
equivalent.

## References
docs/precision.md; IEEE 754 binary16.
"""

from __future__ import annotations

from gpucompat import fp16_patterns
from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.precision.fp16 import described, gpu_ops


@rule("PREC406", name="fp16-unscaled-variance", severity="warning", fix="fp16-safe-layernorm", uses_analyses=True)
def unscaled_variance(result, analyses) -> list[Finding]:
    """PREC406 per GPU sum of unscaled squares, when no inputs were given."""
    if analyses.value_ranges is not None:
        return []  # with data, PREC403 says whether it overflows
    graph = analyses.model.graphs[0]
    sums = fp16_patterns.unscaled_sums_of_squares(graph)
    if not sums:
        return []
    gpu = gpu_ops(result)
    layer_norm_squares = {id(ln.square) for ln in fp16_patterns.layer_norms(graph)}
    out = []
    for s in sums:
        if s.square.index in gpu and s.total.index in gpu:
            what = ("the variance of a LayerNorm; `gpucompat fix --rewrite fp16-safe-layernorm` rewrites it"
                    if id(s.square) in layer_norm_squares else "a sum of squares")
            out.append(Finding("PREC406", "warning",
                               f"op#{s.total.index} {s.total.name} sums the squares of {described(s.square)}, "
                               f"unscaled "
                               f"({what}): past |x| ~ 256 they overflow fp16; data would confirm it "
                               f"(gpucompat check --inputs data.npz)", ((0, s.square.index), (0, s.total.index))))
    return out
