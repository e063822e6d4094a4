"""A delegated op in a form the real accelerator computes wrongly (fp32 and fp16).

## What it finds
An op that LiteRT's GPU accelerator delegates and then computes wrongly, with no error: its form
(rules/support/forms.py: the op, which operand is a constant, each operand's shape written with `n` for
an axis above 1 and `1` for an axis of 1; for layout ops and reductions the axes they act on) is
one the numerics calibration grid measured wrong at fp32 (and so at its fp16 default too). The
grid enumerates every form up to rank 4; a form is wrong when any of its measured instances is.
Among the wrong forms: a binary elementwise op (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
SQUARED_DIFFERENCE) of a rank-0 to rank-3 runtime tensor with a constant of higher rank (ADD
[8] + constant [2,1,8], MUL [8] x constant [1,1,1,8]), or of the same rank that is not a vector
along the last axis; SOFTMAX of a rank-1 tensor; PAD and MIRROR_PAD of a rank-3 tensor whose
batch is above 1 or open (at batch 1 they are right);
FULLY_CONNECTED of a rank-1 input, with runtime weights and a bias, or with int8 weights
flattening a rank-4 input, a float or an int8 input alike (FULLY_CONNECTED keys also name a
non-float input, the output shape, keep_num_dims and the weights' kind and type: constant
float32, float16 behind a DEQUANTIZE, int8, or runtime). Where an operand comes from is part of
every form: SELECT, SELECT_V2, CONCATENATION and PACK reading an fp16 constant behind a
DEQUANTIZE (TF's fp16 weights) are computed as zeros on GPUs with fp16 shaders, where the same ops
reading a float32 constant are right; a convolution reading weights made at run time (sparse
weights densified on the CPU) or a 1x1 convolution with int8 weights at stride 2 are wrong too.
The message names the form and its evidence: the LiteRT release, the precision, the kind of GPU
it is wrong on when the two measured adapters disagree, the cosine and the max error against the
CPU, the grid form that showed it and the runtime's own error (a shader that failed to build),
and the GPU partition the op runs in with the graph outputs that partition reaches: a shader that
fails to build leaves every output of its partition unwritten. Raised under the profiles the
calibration stands for (litert-mldrift).

## Why it matters on the GPU
The model runs, fully delegated, and returns numbers far from the CPU's (cosines down to 0 on
the grid); nothing in the runtime's log says so. The delegate lays a tensor out by its rank
(rank 1 [n] is a batch of n, rank 2 is batch and channels, rank 3 batch, width and channels)
and reads a constant as a vector or as HWC, so operands of different ranks meet on the wrong axes.

## Example
ADD of a [85, 16] tensor and a constant [1, 85, 16] (form "ADD runtime [n,n] with constant
[1,n,n]"): cosine 0.18 against the CPU. The same op at rank 4 is exact.

## How to fix
`gpucompat fix --profile litert-mldrift` runs the op at rank 4 between two RESHAPEs, with its
constant stored at rank 4 (rewrite explicit-rank-4), or, for a runtime scalar or per-channel
vector with a constant tensor, against the constant laid out flat (flat-constant), or, for a
runtime operand broadcast across the batch of a constant [B, H, W, C] with B > 1, once per batch
slice of the constant, concatenated along the batch (split-batch), or, for a FULLY_CONNECTED of
a rank-1 input, on that input as a batch of one, [1, n] (batched-vector), or, for an op reading
an fp16 or int8 constant through a DEQUANTIZE, on a float32 constant of the same values
(float32-constant), or, for a 1x1 convolution at stride 2, on every other pixel at stride 1
(subsample-1x1-conv); each only when the form it makes is measured right. Check with `gpucompat
verify MODEL --runner litert-gpu`. A RESHAPE written in the model source does not help: the
converter folds it back.

## Fix safety
exact: the same values, in the same order, computed by the same op.

## References
rules/support/calibration/litert_gpu.json (the measurements, per form); gpucompat/calibrate/grid.py (the grid);
docs/fidelity.md (Numerics calibration).
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.calibrated_forms import wrong_findings


@rule("GPU005", name="delegated-computes-wrong", severity="error", fix="explicit-rank-4", uses_analyses=True)
def computes_wrong(result, analyses) -> list[Finding]:
    """GPU005 per delegated op whose form the calibration measured wrong at fp32."""
    return wrong_findings(result, analyses, "GPU005")
