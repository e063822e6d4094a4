"""On the given inputs, emulated fp16 changes the top class of a classifier-like output.

## What it finds
Classifier-like outputs (rank 1 or 2, a class axis of 2 or more, written by SOFTMAX or
LOG_SOFTMAX, or FULLY_CONNECTED logits of 100 classes or more: gpucompat/verification/task_metrics.py)
whose top class changes at fp16 on the inputs given to `gpucompat check --inputs`. fp16 is emulated
without a GPU (gpucompat/fp16_emulation.py): every float tensor a GPU-placed op writes, and every
float constant it reads, rounded to half, on the reference interpreter. It approximates the
delegate's half storage op by op; the delegate rounds once per fused kernel and some devices also
accumulate in half.

## Why it matters on the GPU
fp16 is the default of the GPU delegate and LiteRT's accelerator. A classifier is judged by its
top class: an error of a few thousandths can turn one class into another where two logits are
close, and nothing in the run says so.

## Example
A real classifier's class 682 became 1671 on LiteRT's accelerator at its fp16 default (issue 23);
on `tests/models_verdict.py`'s two-class FULLY_CONNECTED + SOFTMAX, half rounds both 1.0003 and
1.0004 to 1: the probabilities tie and class 1 becomes 0.

## How to fix
Confirm with `gpucompat verify --precision fp16 --inputs DATA` (the executor) or `--runner
litert-gpu --precision fp16` (the real accelerator); then run the model at fp32
(`setPrecisionLossAllowed(false)` / `enforce_f32`), or keep the final layers on the CPU.

## Fix safety
Not applicable.

## References
docs/precision.md, docs/verify.md "Task-level numerics".
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule


@rule("PREC409", name="fp16-class-flip", severity="warning", uses_analyses=True)
def class_flips(result, analyses) -> list[Finding]:
    """PREC409 per classifier-like output whose top class emulated fp16 changes on the inputs."""
    flips = analyses.fp16_class_flips or {}
    graph = analyses.model.graphs[0] if flips else None
    out = []
    for index, task in sorted(flips.items()):
        t = graph.outputs[index]
        first = task["flips"][0]
        where = ((0, t.producer.index),) if t.producer is not None else ()
        out.append(Finding("PREC409", "warning",
                           f"fp16 (emulated) changes the top class of output {t.name!r} on {task['class_flips']} "
                           f"of {task['rows']} sample rows "
                           f"(sample {first['run']}: class {first['reference_class']} becomes {first['test_class']}); "
                           "confirm with `gpucompat verify --precision fp16 --inputs`", where))
    return out
