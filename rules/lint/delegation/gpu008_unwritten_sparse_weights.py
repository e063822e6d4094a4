"""A delegated op reads sparse weights that LiteRT's CPU never writes.

## What it finds
Sparse weights a converter stores as DENSIFY of a sparse constant, then DEQUANTIZE (fp16, or int8
with per-channel scales), where the GPU does not take the DEQUANTIZE ("Dequantize for Densify is
not supported", "Unsupported quantization scale size") and an op the GPU takes reads its output.
MediaPipe's sparse detectors (pose_detection, face_detection_full_range_sparse) are built so. Raised
under the profiles of LiteRT's CompiledModel (litert-mldrift), whose CPU side is XNNPACK by default.

## Why it matters on the GPU
The model compiles and runs, partly on the GPU, and its outputs are far from the CPU's (error 281
against a largest output of 242 on pose_detection, cosine 0.2); nothing in the log says so. The
GPU computes right: it reads garbage. XNNPACK claims the DENSIFY and the DEQUANTIZE as "static
unpack" nodes and unpacks their data into its own buffers without writing the tensors; it hands
the DEQUANTIZE back to the interpreter because a node outside XNNPACK (the delegated reader)
reads its output, but not the DENSIFY, so the interpreter's DEQUANTIZE converts a tensor nobody
wrote (tflite/delegates/xnnpack/xnnpack_delegate.cc PrepareOpsToDelegate; bisected on LiteRT
2.3.0: the same models run right with LiteRT's builtin CPU kernels, and with the weights stored
dense). Whatever op reads the weights is spoiled: convolutions, FULLY_CONNECTED, ADD, MUL. A reader
XNNPACK runs itself (in a partition the delegate leaves on the CPU) gets the right values.

## Example
`DENSIFY(sparse fp16 [16, 1, 1, 24]) -> DEQUANTIZE -> CONV_2D`: the DEQUANTIZE runs on the CPU,
the CONV_2D on the GPU reads unwritten memory (cosine 0.06 on pose_detection's op 10).

## How to fix
`gpucompat fix --profile litert-mldrift` folds the DENSIFY into a dense constant (fold-constants),
whose DEQUANTIZE the GPU then takes and folds itself; the weights get bigger (sparse -> dense).
Converting without sparsity (no `Optimize.EXPERIMENTAL_SPARSITY`) avoids it at the source.

## Fix safety
exact: the same weights, stored dense.

## References
tflite/delegates/xnnpack/xnnpack_delegate.cc (static unpack nodes: DENSIFY, DEQUANTIZE of a
constant); tflite/kernels/densify.cc; docs/fidelity.md ("Sparse weights on LiteRT's CPU").
"""

from __future__ import annotations

from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.lint import Finding, rule


@rule("GPU008", name="unwritten-sparse-weights", severity="error", fix="fold-constants", uses_analyses=True)
def unwritten_sparse_weights(result, analyses) -> list[Finding]:
    """GPU008 per delegated op reading a DEQUANTIZE of a DENSIFY of a sparse constant that stays on
    the CPU, where nothing outside XNNPACK reads the DENSIFY itself."""
    if result.profile.release is None:  # the classic delegate: not LiteRT's CompiledModel
        return []
    placement = {(o.subgraph, o.index): o.placement for o in result.ops}
    out = []
    for graph in analyses.model.graphs:
        for op in graph.ops:
            dense = op.input(0) if op.builtin == B["DEQUANTIZE"] else None
            if dense is None or placement.get((graph.index, op.index)) != "cpu" or not _unpacked(dense):
                continue
            for reader in {id(r): r for t in op.outputs for r in t.consumers}.values():
                if placement.get((graph.index, reader.index)) == "gpu":
                    out.append(Finding(
                        "GPU008", "error",
                        f"subgraph {graph.index} op#{reader.index} {reader.name} is delegated and reads "
                        f"{op.outputs[0].name!r}, sparse weights densified and dequantized on LiteRT's CPU "
                        f"(op#{dense.producer.index} DENSIFY, op#{op.index} DEQUANTIZE) that XNNPACK never writes: "
                        f"the GPU computes with unwritten memory (bisected on LiteRT {result.profile.release})",
                        ((graph.index, reader.index),)))
    return out


def _unpacked(t) -> bool:
    """Whether XNNPACK unpacks `t` without writing it: the output of a DENSIFY of a sparse
    constant whose every reader is a DEQUANTIZE (what XNNPACK claims with it)."""
    p = t.producer
    return (p is not None and p.builtin == B["DENSIFY"] and p.input(0) is not None and p.input(0).is_constant
            and all(c.builtin == B["DEQUANTIZE"] for c in t.consumers))
