"""PREC family, delegated-but-wrong forms: ops the GPU takes and computes wrongly, as measured by
the numerics calibration grid on LiteRT's real GPU accelerator (rules/calibration/)."""

from __future__ import annotations

from gpucompat.rules import calibration
from gpucompat.rules.forms import form_of
from gpucompat.rules.lint import Finding, Rule

CODES = ("GPU005", "PREC408")

WRONG_DOC = """\
## What it finds
An op that LiteRT's GPU accelerator delegates and then computes wrongly, with no error, in a form
the numerics calibration grid measured wrong at fp32 (and so at its fp16 default too): a
binary elementwise op (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM) below rank 4 whose constant operand
has a higher rank than the runtime one, or the same rank without being a per-channel vector
(1 x ... x 1 x C); a runtime rank-0 operand with a constant tensor (and, at rank 4, a runtime
[1,1,1,1] with a constant of batch above 1); a PAD or PADV2 of a rank-3 tensor. The
forms are keyed as rules/forms.py describes; the message names the form and the measurement.
Raised under the profiles the calibration stands for (litert-mldrift).

## Why it matters on the GPU
The model runs, fully delegated, and returns numbers far from the CPU's (cosines down to 0 on
the grid); nothing in the runtime's log says so. Rank-4 forms and constants of lower rank than
the runtime operand (per-channel biases, suffix broadcasts) are computed right.

## Example
ADD of a [85, 16] tensor and a constant [1, 85, 16]: cosine 0.18 against the CPU. MUL of
[512, 1024] by a constant [1, 1, 1024]: cosine 0.003. PAD of a [16, 32, 1] tensor on axis 1:
cosine 0.01. The same ops at rank 4 are exact.

## How to fix
`gpucompat fix --profile litert-mldrift` runs the op at rank 4 between two RESHAPEs, with its
constant stored at rank 4 (rewrite explicit-rank-4), or, for a runtime scalar or per-channel
vector with a constant tensor, against the constant laid out flat (flat-constant), or, for a
runtime operand broadcast across the batch of a constant [B, H, W, C] with B > 1, once per batch
slice of the constant, concatenated along the batch (split-batch). Check with
`gpucompat verify MODEL --backend litert-gpu`. A RESHAPE written in the model source does not
help: the converter folds it back.

## Fix safety
exact: the same values, in the same order, computed by the same op.

## References
rules/calibration/litert_gpu.json (the measurements, per form); tests/numerics_grid.py (the grid);
docs/fidelity.md (Numerics calibration).
"""

FP16_DOC = """\
## What it finds
An op that LiteRT's GPU accelerator computes right in fp32 but wrongly at its default precision
(fp16 storage and arithmetic), in a form the numerics calibration grid measured: a SUM over long
axes (1024 or more elements into each output) whose totals pass 65504, fp16's largest value.

## Why it matters on the GPU
The accelerator's default is fp16; a total past 65504 is off by thousands (13% of the largest
total on a SUM over [1, 112, 112, 32] with values 5-7) or infinite. The grid measures it with values that reach that
size: with small values the same op is right, so read the evidence against your data.

## Example
SUM over axes 1 and 2 of [1, 112, 112, 32] with values 5-7: wrong at fp16, exact at fp32.

## How to fix
Scale before the reduction (MEAN instead of SUM, or a MUL by 1/N before it), or run the model
with GpuOptions(enforce_f32=True). Check with `gpucompat verify MODEL --backend litert-gpu
--precision fp16`.

## Fix safety
Not applicable.

## References
rules/calibration/litert_gpu.json; tests/numerics_grid.py.
"""


def wrong_findings(result, analyses, code: str) -> list[Finding]:
    """Findings of `code` (GPU005: wrong at fp32; PREC408: wrong at fp16 only) on the ops the
    profile delegates whose form the calibration recorded wrong."""
    record = calibration.load()
    if result.profile.name not in record["profiles"]:
        return []
    candidates = calibration.ops_wrong_at("fp32" if code == "GPU005" else "fp16")
    out = []
    for o in result.ops:
        if o.placement != "gpu" or o.op not in candidates:
            continue
        op = analyses.model.graphs[o.subgraph].ops[o.index]
        key = form_of(op)
        seen = calibration.observed(key)
        if seen is None:
            continue
        fp32, fp16 = seen["fp32"]["wrong"], seen["fp16"]["wrong"]
        if (code == "GPU005" and fp32) or (code == "PREC408" and fp16 and not fp32):
            ev = seen["fp32" if fp32 else "fp16"]
            where = (
                "at fp32 and at its fp16 default" if fp32 and fp16 else ("at fp32" if fp32 else "at its fp16 default")
            )
            out.append(
                Finding(
                    code,
                    "error",
                    f"subgraph {o.subgraph} op#{o.index} {o.op} [{key}] is delegated and computes wrong "
                    f"values: observed with LiteRT {record['litert']}'s accelerator {where}: cosine "
                    f"{ev['cosine']}, max error {ev['max_error']:g} of the largest output "
                    f"({ev['example']})",
                    ((o.subgraph, o.index),),
                )
            )
    return out


RULES = [
    Rule(
        "GPU005",
        "delegated-computes-wrong",
        "error",
        "A delegated op in a form the real accelerator computes wrongly (fp32 and fp16).",
        WRONG_DOC,
        lambda result, analyses: wrong_findings(result, analyses, "GPU005"),
        fix="explicit-rank-4",
        uses_analyses=True,
    ),
    Rule(
        "PREC408",
        "delegated-wrong-at-fp16",
        "error",
        "A delegated op in a form the real accelerator computes wrongly at its fp16 default.",
        FP16_DOC,
        lambda result, analyses: wrong_findings(result, analyses, "PREC408"),
        uses_analyses=True,
    ),
]
