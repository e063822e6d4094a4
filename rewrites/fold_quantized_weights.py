"""fold-quantized-weights: int8 / uint8 weights read through DEQUANTIZE into FULLY_CONNECTED become
float32 weights.

    FULLY_CONNECTED(x, DEQUANTIZE(int8 constant))  ==>  FULLY_CONNECTED(x, float32 constant)

Weight-only quantized exports (strict QDQ conversion, weight-only quantizers) read their weights
so. On LiteRT's GPU accelerator the whole compile fails (observed with ai-edge-litert 2.3.0,
"Failed to modify graph with delegate"; LiteRT issue 9523). An explicit RESHAPE between
DEQUANTIZE and FULLY_CONNECTED (the workaround in that issue) still fails here; float32 weights
compile. Only where the profile rejects the DEQUANTIZE; the weights get 4x bigger.

The values are fold-constants' dequantization ((q - zero_point) * scale, as the runtime computes
it). Safety: equivalent, not exact: with constant weights the reference interpreter hands the
FULLY_CONNECTED to XNNPACK, which sums in another order than the builtin kernel that read the
DEQUANTIZE output.
"""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.rewrites.fold_constants import FoldConstants, feeds_quantized_weights
from gpucompat.rewrites.matching import of_type


class FoldQuantizedWeights(FoldConstants):
    name = "fold-quantized-weights"
    safety = "equivalent"
    priority = 21
    summary = "int8 / uint8 weights read through DEQUANTIZE into FULLY_CONNECTED become float32 weights"

    def candidates(self, graph, ctx):
        return [op for op in of_type(graph, "DEQUANTIZE") if feeds_quantized_weights(op)]

    def check(self, op: Op, ctx):
        return self.check_dequantize(op, ctx)
