"""Delegated-but-wrong and never-measured forms: ops the GPU takes in a form (rules/forms.py) that
the numerics calibration grid measured wrong on LiteRT's real GPU accelerator, or never measured
(rules/calibration/). The rules read the table only: no form is judged by a hand-written predicate."""

from __future__ import annotations

from gpucompat.rules import calibration
from gpucompat.rules.forms import KEYED, form_of
from gpucompat.rules.lint import Finding, Rule

WRONG_CODES = ("GPU005", "PREC408")
UNMEASURED_CODES = ("GPU007",)

WRONG_DOC = """\
## What it finds
An op that LiteRT's GPU accelerator delegates and then computes wrongly, with no error: its form
(rules/forms.py: the op, which operand is a constant, each operand's shape written with `n` for
an axis above 1 and `1` for an axis of 1; for layout ops and reductions the axes they act on) is
one the numerics calibration grid measured wrong at fp32 (and so at its fp16 default too). The
grid enumerates every form up to rank 4; a form is wrong when any of its measured instances is.
Among the wrong forms: a binary elementwise op (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
SQUARED_DIFFERENCE) of a rank-0 to rank-3 runtime tensor with a constant of higher rank (ADD
[8] + constant [2,1,8], MUL [8] x constant [1,1,1,8]), or of the same rank that is not a vector
along the last axis; SOFTMAX of a rank-1 tensor; PAD of a rank-3 tensor; FULLY_CONNECTED of a
rank-1 input, with runtime weights and a bias, or with int8 weights flattening a rank-4 input
(FULLY_CONNECTED keys also name the output shape, keep_num_dims and the weights' kind and type:
constant float32, float16 behind a DEQUANTIZE, int8, or runtime). The message names the
form and its evidence: the LiteRT release, the precision, the cosine and the max error against
the CPU, and the grid form that showed it. Raised under the profiles the calibration stands for
(litert-mldrift).

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
a rank-1 input, on that input as a batch of one, [1, n] (batched-vector); each only when the form
it makes is measured right. Check with `gpucompat verify MODEL --backend litert-gpu`. A RESHAPE
written in the model source does not help: the converter folds it back.

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

UNMEASURED_DOC = """\
## What it finds
An op that LiteRT's GPU accelerator delegates, of an op type whose forms the numerics calibration
grid measures (binary and one-operand elementwise ops, SOFTMAX, TRANSPOSE, SLICE, STRIDED_SLICE,
CONCATENATION, RESHAPE, PAD, reductions, EMBEDDING_LOOKUP, FULLY_CONNECTED), in a form
(rules/forms.py) the grid never measured: a CONCATENATION of runtime, constant and runtime
operands, a STRIDED_SLICE with a step of 4, a MIRROR_PAD, a long REDUCE_PROD, a FULLY_CONNECTED
of an int8 input. Nothing is known about what the accelerator
computes for it; unknown is not right. Raised under the profiles the calibration stands for
(litert-mldrift).

## Why it matters on the GPU
The accelerator computes some forms of these ops wrongly with no error (GPU005); this one was
never compared with the CPU, so the model's outputs are unproven on the GPU.

## Example
MIRROR_PAD of a [1, 16, 16, 8] tensor: "MIRROR_PAD rank 4 on axes 1,2" was never measured.

## How to fix
Check the model on the real accelerator: `gpucompat verify MODEL --backend litert-gpu` (fp32
and `--precision fp16`). To add the form to the table, add it to tests/numerics_grid.py and
re-record with `python tests/numerics_grid.py`.

## Fix safety
Not applicable.

## References
rules/calibration/litert_gpu.json; tests/numerics_grid.py; rules/forms.py.
"""


def _evidence(record: dict, seen: dict, precision: str) -> str:
    """What the grid measured for a form at `precision`: the release, cosine, max error, example."""
    ev = seen[precision]
    return (f"LiteRT {record['litert']}'s accelerator at {precision}: cosine {ev['cosine']}, max error "
            f"{ev['max_error']:g} of the largest output ({ev['example']})")


def _delegated_keyed(result, analyses):
    """(op record, form key) of every op the profile delegates whose op type has form keys."""
    for o in result.ops:
        if o.placement == "gpu" and o.op in KEYED:
            yield o, form_of(analyses.model.graphs[o.subgraph].ops[o.index])


def wrong_findings(result, analyses, code: str) -> list[Finding]:
    """Findings of `code` (GPU005: wrong at fp32; PREC408: wrong at fp16 only) on the ops the
    profile delegates whose form the calibration recorded wrong."""
    if result.profile.name not in calibration.PROFILES:  # asked first: loading the table costs time
        return []
    record = calibration.load()
    out = []
    for o, key in _delegated_keyed(result, analyses):
        fp32, fp16 = calibration.status(key, "fp32") == "wrong", calibration.status(key, "fp16") == "wrong"
        if (code == "GPU005" and fp32) or (code == "PREC408" and fp16 and not fp32):
            where = "at fp32 and at its fp16 default" if fp32 and fp16 else (
                "at fp32" if fp32 else "at its fp16 default")
            out.append(Finding(
                code, "error",
                f"subgraph {o.subgraph} op#{o.index} {o.op} [{key}] is delegated and computes wrong values "
                f"{where}: observed with {_evidence(record, calibration.observed(key), 'fp32' if fp32 else 'fp16')}",
                ((o.subgraph, o.index),)))
    return out


def unmeasured_findings(result, analyses) -> list[Finding]:
    """GPU007 on the ops the profile delegates whose op type has form keys and whose form the
    calibration never measured (or whose form cannot be read from the file)."""
    if result.profile.name not in calibration.PROFILES:
        return []
    record = calibration.load()
    out = []
    for o, key in _delegated_keyed(result, analyses):
        if calibration.status(key, "fp32") == "unmeasured":
            what = f"form [{key}]" if key else "form (its axes or shape are not in the file)"
            out.append(Finding(
                "GPU007", "warning",
                f"subgraph {o.subgraph} op#{o.index} {o.op} is delegated in a {what} that was never measured on "
                f"LiteRT {record['litert']}'s accelerator: no measurement exists, so its values on the GPU are "
                "unproven", ((o.subgraph, o.index),)))
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
    Rule(
        "GPU007",
        "unmeasured-form",
        "warning",
        "A delegated op in a form the real accelerator was never measured on.",
        UNMEASURED_DOC,
        unmeasured_findings,
        uses_analyses=True,
    ),
]
