"""A delegated basic LSTM whose units are not a multiple of 4 computes wrong values.

## What it finds
A basic-kernel LSTM (kernel_type BASIC: 5 inputs, 4 outputs) that the delegate takes, with a
number of units that is not a multiple of 4.

## Why it matters on the GPU
The op runs, and computes wrong values. Its GPU task reads gate k of the [B, 4 x units]
activations at slice `k x ceil(units / 4)` of the 4-channel layout, which is where the gate
starts only when units % 4 == 0; otherwise every gate but the first mixes channels of its
neighbours. Observed on LiteRT's GPU accelerator (ai-edge-litert 2.3.0): `activ` and `state`
differ from the CPU by the size of the values themselves at 3 and 9 units, and agree at 4.

## Example
A basic LSTM with 9 units: the new state's error is as large as the state.

## How to fix
Pad the cell to a multiple of 4 units (zero weights and biases for the extra units leave the real
units' values unchanged), or keep the op off the GPU. Check with `gpucompat verify MODEL --runner
litert-gpu`.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/tasks/lstm.cc (gate slices); common/lstm_parser.cc ParseBasic;
tflite/kernels/lstm.cc (the basic kernel's 4 x units activations).
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule

LSTM_BASIC = 1


@rule("PREC402", name="lstm-units-off-slices", severity="error", uses_analyses=True)
def lstm_units_off_slices(result, analyses) -> list[Finding]:
    """PREC402 per delegated basic LSTM whose units are not a multiple of 4."""
    out = []
    for g in analyses.model.graphs:
        gi = g.index  # a search of the model's graphs: asked once, not per op
        for o in (o for o in result.ops if o.subgraph == gi and o.placement == "gpu" and o.op == "LSTM"):
            op = g.ops[o.index]
            if getattr(op.options, "kernelType", None) != LSTM_BASIC or len(op.outputs) < 2:
                continue
            units = op.outputs[1].shape[-1] if op.outputs[1].shape else 0
            if units % 4:
                out.append(Finding("PREC402", "error",
                                   f"subgraph {g.index} op#{o.index} LSTM (basic kernel) has {units} units, not a "
                                   f"multiple of 4: the GPU reads its gates from the wrong channels",
                                   ((g.index, o.index),)))
    return out
