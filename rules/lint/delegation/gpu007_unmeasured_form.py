"""A delegated op in a form the real accelerator was never measured on.

## What it finds
An op that LiteRT's GPU accelerator delegates in a form (rules/support/forms.py) the numerics
calibration grid never measured. Every op type the GPU takes has form keys, and every key names
where each operand comes from (a runtime tensor, a float32 constant, an fp16 or int8 constant
behind a DEQUANTIZE), because the accelerator reads each kind through other code: a SELECT_V2 of
an fp16 constant is unmeasured even where the same op with a float32 constant was measured right.
Examples: a CONCATENATION of runtime, constant and runtime operands, a STRIDED_SLICE with a step
of 4, a long REDUCE_PROD, a convolution at stride 3. Nothing is known about what the accelerator
computes for it; unknown is not right. Raised under the profiles the calibration stands for
(litert-mldrift).

## Why it matters on the GPU
The accelerator computes some forms of these ops wrongly with no error (GPU005); this one was
never compared with the CPU, so the model's outputs are unproven on the GPU.

## Example
`x[:, :, :, ::4]` of a [1, 6, 6, 8] tensor: "STRIDED_SLICE rank 4 step 4 on axes 3" was never measured.

## How to fix
Check the model on the real accelerator: `gpucompat verify MODEL --runner litert-gpu` (fp32
and `--precision fp16`). To add the form to the table, add it to gpucompat/calibrate/grid.py and
record its group with `python tools/record_grid.py GROUP`.

## Fix safety
Not applicable.

## References
rules/support/calibration/litert_gpu.json; gpucompat/calibrate/grid.py; rules/support/forms.py.
"""

from __future__ import annotations

from gpucompat.rules.lint import Finding, rule
from gpucompat.rules.lint.calibrated_forms import delegated_keyed
from gpucompat.rules.support import calibration


@rule("GPU007", name="unmeasured-form", severity="warning", uses_analyses=True)
def unmeasured(result, analyses) -> list[Finding]:
    """GPU007 on the ops the profile delegates whose form the calibration never measured (or whose
    form cannot be read from the file)."""
    table = calibration.for_profile(result.profile, result.options.backend)
    if table is None:
        return []
    out = []
    for o, key in delegated_keyed(result, analyses, table):
        if table.status(key, "fp32") == "unmeasured":
            what = f"form [{key}]" if key else "form (its axes or shape are not in the file)"
            out.append(Finding(
                "GPU007", "warning",
                f"subgraph {o.subgraph} op#{o.index} {o.op} is delegated in a {what} that was never measured on "
                f"{table.measured_on}: no measurement exists, so its values on the GPU are "
                "unproven", ((o.subgraph, o.index),)))
    return out
