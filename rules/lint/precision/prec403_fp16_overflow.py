"""On the given inputs, a GPU op's values pass 65504 and become inf at fp16.

## What it finds
GPU-placed ops whose output, on the inputs given to `gpucompat check --inputs data.npz`, goes past
65504, the largest fp16 value: squares and sums of squares (SQUARED_DIFFERENCE, MUL(x, x), the
variance of a LayerNorm), EXP of logits above 11.09, or any value that large. The finding names
the op where the overflow starts, the value it reached, and how many ops after it read it.

## Why it matters on the GPU
At fp16 (the default of the Java GpuDelegate, benchmark_model and LiteRT's CompiledModel) every
tensor is stored as half: the value becomes inf, and inf - inf, 0 x inf give NaN. The model runs
with no error. A LayerNorm whose rows reach |x - mean| ~ 256 has a variance of inf, an RSQRT of 0,
and outputs its beta: LiteRT's GPU accelerator (lavapipe) and `gpucompat verify --precision fp16`
both give correlation 0.06 with the reference on rows of |x| ~ 1000 (docs/precision.md).

## Example
`op#2 SQUARED_DIFFERENCE 'moments/SquaredDifference' reaches 1.38e+07 (> 65504)`: a
keras.layers.LayerNormalization fed rows of |x| ~ 1000.

## How to fix
For the converter's LayerNorm: `gpucompat fix MODEL --rewrite fp16-safe-layernorm` computes it in a
scaled domain (S = max(max|x| / 8, 1) per row). For EXP: subtract the row's max first (the SOFTMAX
op does). Otherwise scale the values down before the op, or run the model at fp32 precision.
Check with `gpucompat verify MODEL --precision fp16 --inputs data.npz`.

## Fix safety
fp16-safe-layernorm: equivalent (the same value in fp32 up to rounding).

## References
IEEE 754 binary16; tflite/delegates/gpu/common/precision.h; research notes §5.6 (default
precision per entry point); docs/precision.md (the measurements).
"""

from __future__ import annotations

from gpucompat import fp16_patterns
from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.precision.fp16 import FP16_MAX, described, gpu_ops, observed_gpu_ops


def _from_gpu(t, gpu: dict) -> bool:
    """True when a GPU-placed op of the main subgraph writes `t`."""
    return t.producer is not None and t.producer.graph.index == 0 and t.producer.index in gpu


def _overflow_kind(op, ranges) -> str:
    x = fp16_patterns.squared_input(op)
    if x is not None:
        return "a square" + (f" of values up to {ranges[x.index].absmax:.3g}" if x.index in ranges else "")
    if op.name == "EXP" and op.present_inputs[0].index in ranges:
        return f"exp of logits up to {ranges[op.present_inputs[0].index].maximum:.3g} without max-subtraction"
    if op.name in fp16_patterns.SUMMING_OPS:
        return "a sum"
    return "the value itself"


def _readers_after(op, over: set[int]) -> int:
    """Ops downstream of `op` reached through tensors that overflow."""
    seen, todo = set(), [t for t in op.outputs if t.index in over]
    while todo:
        t = todo.pop()
        for reader in t.consumers:
            if id(reader) not in seen:
                seen.add(id(reader))
                todo.extend(x for x in reader.outputs if x.index in over)
    return len(seen)


@rule("PREC403", name="fp16-overflow", severity="error", uses_analyses=True)
def overflow(result, analyses) -> list[Finding]:
    """PREC403 per GPU op where, on the given inputs, values first pass fp16's range (or enter it past it)."""
    observed = observed_gpu_ops(result, analyses)
    if not observed:
        return []
    ranges = analyses.value_ranges
    over = {i for i, r in ranges.items() if r.absmax > FP16_MAX}
    gpu = gpu_ops(result)
    layer_norm_ops = {id(op) for ln in fp16_patterns.layer_norms(analyses.model.graphs[0]) for op in ln.ops}
    out = []
    for op, _ in observed:
        fix = ("`gpucompat fix --rewrite fp16-safe-layernorm` computes this LayerNorm in a scaled domain"
               if id(op) in layer_norm_ops else "scale the values down first, or run this part at fp32")
        entering = [t for t in op.present_inputs if t.index in over and not _from_gpu(t, gpu)]
        outs = [t for t in op.outputs if t.index in over]
        if entering:  # computed on the CPU (or a model input), stored as half when the GPU takes it
            t = entering[0]
            source = "from the CPU" if t.producer is not None else "(a model input)"
            message = (f"{described(op)} reads {t.name!r} {source} with values up to "
                       f"{ranges[t.index].absmax:.3g}, past fp16's 65504: the GPU stores it as inf")
        elif outs and not any(t.index in over for t in op.present_inputs):  # where the overflow starts
            message = (f"{described(op)} reaches {ranges[outs[0].index].absmax:.3g} on the inputs, past fp16's "
                       f"65504 ({_overflow_kind(op, ranges)})")
        else:
            continue
        out.append(Finding("PREC403", "error", f"{message}; {_readers_after(op, over)} op(s) after it read inf or "
                                               f"NaN at fp16 precision; {fix}", ((0, op.index),)))
    return out
