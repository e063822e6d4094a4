"""PREC family: where the numbers the GPU computes differ from the CPU's."""

from __future__ import annotations

from gpucompat.ir import dtypes
from gpucompat.rules.lint import Finding, Rule

QUANTIZED_NAMES = (dtypes.name(dtypes.INT8), dtypes.name(dtypes.UINT8))

FLOAT_DOC = """\
## What it finds
Quantized (int8 / uint8) ops that the delegate takes.

## Why it matters on the GPU
The GPU delegate has no integer kernels: it dequantizes constant weights once at initialisation,
gives every runtime int8/uint8 tensor a float shadow, and inserts a QUANTIZE_AND_DEQUANTIZE step
after every op whose output was fixed point, so the results follow the quantized model only
approximately, and with FP16 precision (the Java and benchmark_model default) less so. The
quantized model's memory saving does not carry over to the GPU.

## Example
A full-integer CONV_2D with int8 input: run in float with a re-quantization step after it.

## How to fix
Nothing to fix when the float emulation is intended; for GPU builds, the float (or fp16-weight)
model is the natural source. Check the numbers with `gpucompat verify`.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/model_builder_helper.cc (CreateVectorCopyData, DequantizeConstantTensor);
common/object_reader.cc ReadNonConstantTensor; common/transformations/add_quant_adjustments.h.
"""


def _quantized_on_gpu(result, analyses) -> list[Finding]:
    cp = analyses.channel_padding
    gpu_nodes = {(o.subgraph, o.index) for o in result.ops if o.placement == "gpu"}
    quant_tensors = [t for t in cp.tensors if t.dtype in QUANTIZED_NAMES]
    if not quant_tensors or not gpu_nodes:
        return []
    return [Finding("PREC401", "info",
                    f"{len(quant_tensors)} quantized tensor(s) on the GPU run as float emulation "
                    f"(dequantized weights, float shadows, a re-quantization step after each op)")]


LSTM_DOC = """\
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
units' values unchanged), or keep the op off the GPU. Check with `gpucompat verify MODEL --backend
litert-gpu`.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/tasks/lstm.cc (gate slices); common/lstm_parser.cc ParseBasic;
tflite/kernels/lstm.cc (the basic kernel's 4 x units activations).
"""

LSTM_BASIC = 1  # LSTMKernelType.BASIC (schema)


def _lstm_units_off_slices(result, analyses) -> list[Finding]:
    out = []
    for g in analyses.model.graphs:
        for o in (o for o in result.ops if o.subgraph == g.index and o.placement == "gpu" and o.op == "LSTM"):
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


RULES = [
    Rule("PREC401", "quantized-runs-in-float", "info", "Quantized ops on the GPU are emulated in float.",
         FLOAT_DOC, _quantized_on_gpu, uses_analyses=True),
    Rule("PREC402", "lstm-units-off-slices", "error",
         "A delegated basic LSTM whose units are not a multiple of 4 computes wrong values.", LSTM_DOC,
         _lstm_units_off_slices, uses_analyses=True),
]
