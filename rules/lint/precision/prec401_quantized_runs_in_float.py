"""Quantized ops on the GPU are emulated in float.

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

from __future__ import annotations

from gpucompat.ir import dtypes
from gpucompat.rules.lint import Finding, rule

QUANTIZED_NAMES = (dtypes.name(dtypes.INT8), dtypes.name(dtypes.UINT8))


@rule("PREC401", name="quantized-runs-in-float", severity="info", uses_analyses=True)
def quantized_on_gpu(result, analyses) -> list[Finding]:
    """PREC401 once when quantized tensors meet GPU-placed ops."""
    cp = analyses.channel_padding
    gpu_nodes = {(o.subgraph, o.index) for o in result.ops if o.placement == "gpu"}
    quant_tensors = [t for t in cp.tensors if t.dtype in QUANTIZED_NAMES]
    if not quant_tensors or not gpu_nodes:
        return []
    return [Finding("PREC401", "info",
                    f"{len(quant_tensors)} quantized tensor(s) on the GPU run as float emulation "
                    f"(dequantized weights, float shadows, a re-quantization step after each op)")]
