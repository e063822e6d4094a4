"""The zoo's numerics: what LiteRT's real GPU accelerator computes on a zoo model with float
inputs and outputs, judged against the CPU, beside what `check --profile litert-mldrift` says.

What each mode is judged against (a GPU computes in float whatever the file stores):
- fp32, fp16 weights, dynamic batch: the CPU interpreter on the stored model;
- dynamic-range and ai-edge-quantizer recipes (int8 / int4 weights, float activations): the CPU on
  the model with its GPU-placed hybrid ops' weights dequantized (verification/reference_model.py),
  because the CPU's hybrid kernels quantize activations on the fly and the GPU does not;
- full int8: the float model it was quantized from (the zoo's fp32 twin, same seeded weights). The
  GPU emulates int8 in float and the CPU's integer kernels round otherwise, so neither is the
  other's reference: the GPU is right when it is no farther from the float model than the CPU's
  own int8 kernels are (twice that, plus fp32 noise; at fp16 plus twice the distance the twin
  moves when every GPU-written tensor is rounded to half).

At fp32 (`enforce_f32`) the accelerator is held to verify's fp32 noise (1e-3 of the output's
largest magnitude), past verify's absolute floor (1e-5 at fp32, 1e-4 at fp16: outputs near 0
carry their rounding). At its fp16 default it is judged against the same reference with every
tensor a GPU op writes rounded to half (gpucompat/fp16_emulation.py), to 5e-2 of the magnitude
with a cosine of at least 0.99: the emulation rounds op by op where the GPU fuses, so only a
gross error (zeros, a wrong layout, an overflow) is a verdict there.

`check` agrees when it flags the model exactly when the accelerator computes it wrongly: at fp32
with GPU005 / GPU008, at fp16 with GPU008, PREC408 or a GPU005 on a form wrong at fp16 too; a
GPU007 (a form never measured) on a wrong model is a warning, not silence."""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes
from gpucompat.verification.task_metrics import cosine
from gpucompat.verification.tolerance import DEFAULTS, magnitude, max_abs_error

FP32_RTOL = 1e-3  # verify's fp32 noise on the accelerator (runners/litert_gpu/accelerator.py)
FP16_RTOL, FP16_MIN_COSINE = 5e-2, 0.99
INT8_FACTOR = 2.0  # the GPU may be this many times farther from the float model than the CPU's int8 kernels
OPEN_DIM = 1024  # an open dimension other than the batch is fed at this size (a 512-wide VALID conv needs 512)
WRONG_FP32 = {"GPU005", "GPU008"}
PRECISIONS = ("fp32", "fp16")


def feeds(graph: ir.Graph) -> list[np.ndarray]:
    """One seeded input set at the signature's shapes (an open batch at 1, other open axes at
    OPEN_DIM); None when an input is not float."""
    rng = np.random.default_rng(0)
    out = []
    for t in graph.inputs:
        if t.dtype != dtypes.FLOAT32:
            return None
        shape = [(1 if axis == 0 else OPEN_DIM) if d < 0 else d for axis, d in enumerate(t.signature)]
        out.append(rng.standard_normal(shape).astype(np.float32))
    return out


def compare(got: np.ndarray, want: np.ndarray, precision: str) -> dict:
    """Max error past verify's absolute floor at `precision` (an output of values near 0 carries
    its rounding), relative to the reference's largest magnitude, and the cosine, of one output."""
    g, w = np.asarray(got, np.float64).ravel(), np.asarray(want, np.float64).ravel()
    past = max(max_abs_error(g, w) - DEFAULTS[precision][0], 0.0)
    return {"max_error": float(f"{past / (magnitude(w) or 1.0):.3g}"), "cosine": round(cosine(g, w), 5)}


def worst(outputs: list[np.ndarray], reference: list[np.ndarray], precision: str) -> dict:
    """The worst output's comparison: largest error, smallest cosine."""
    found = [compare(g, w, precision) for g, w in zip(outputs, reference)]
    return {"max_error": max(f["max_error"] for f in found), "cosine": min(f["cosine"] for f in found)}


def cpu(model_bytes: bytes, inputs: list[np.ndarray], what: str) -> list[np.ndarray]:
    """The CPU interpreter's outputs on one input set."""
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    it = reference_interpreter(model_bytes, what, input_shapes=[x.shape for x in inputs])
    return [np.array(o) for o in run_reference(it, inputs, what)]


def reference_bytes(data: bytes, mode: str, where: dict[int, list[str]]) -> bytes:
    """The model the CPU runs as the reference (verify's: hybrid weights dequantized where the GPU
    runs them, a custom op the CPU has no kernel for as its builtin twin)."""
    from gpucompat.verification.reference_model import reference_model

    return reference_model(data, where)[0]


def half_rounded(data: bytes, where: dict[int, list[str]]) -> bytes:
    """`data` with every float tensor a GPU-placed op of the main subgraph writes rounded to half."""
    from gpucompat.fp16_emulation import rounded_to_half

    return rounded_to_half(data, {i for i, place in enumerate(where.get(0, [])) if place == "gpu"})


def on_accelerator(path: str, graph: ir.Graph, inputs: list[np.ndarray], precision: str) -> dict:
    """The accelerator's outputs at `precision` (ops it refuses on LiteRT's CPU), or why it gave none;
    NoDevice without a Vulkan device."""
    from gpucompat.confirm.runner import NoDevice
    from gpucompat.runners.litert_gpu.infer import run_on_accelerator

    try:
        run = run_on_accelerator(path, [inputs], [t.index for t in graph.inputs], [t.index for t in graph.outputs],
                                 precision=precision, partly=True)
    except NoDevice:
        raise
    except GpucompatError as e:
        return {"error": str(e).split(": ", 1)[-1]}
    return {"outputs": run.outputs[0], "device_errors": run.device_errors, "whole": run.fully_accelerated}


def verdict(gpu: list[np.ndarray], reference: list[np.ndarray], precision: str,
            int8_cpu: list[np.ndarray] | None = None, half: list[np.ndarray] | None = None) -> dict:
    """Whether the accelerator's outputs are right against `reference` at `precision`; with
    `int8_cpu` (a full-int8 model's CPU outputs, `reference` its float twin's) within INT8_FACTOR of
    the CPU's own distance from the float model, and at fp16 as much again of the distance `half`
    (the twin with every GPU-written tensor rounded to half) is from it, plus fp32 noise."""
    got = worst(gpu, reference, precision)
    if int8_cpu is not None:
        cpu_error = worst(int8_cpu, reference, precision)
        rounding = worst(half, reference, precision)["max_error"] if half is not None else 0.0
        allowed = INT8_FACTOR * (cpu_error["max_error"] + rounding) + FP32_RTOL
        return {**got, "cpu_int8": cpu_error, "allowed": float(f"{allowed:.3g}"), "wrong": got["max_error"] > allowed}
    if precision == "fp32":
        return {**got, "wrong": got["max_error"] > FP32_RTOL}
    return {**got, "wrong": got["max_error"] > FP16_RTOL or got["cosine"] < FP16_MIN_COSINE}


def flags(path: str) -> dict:
    """What `check --profile litert-mldrift` says of the model: its finding codes, ops wrong and
    unmeasured, and how many ops it says are wrong at each precision ("wrong_at": GPU005 and GPU008
    at fp32; at fp16 GPU008, PREC408 and the GPU005 ops whose form is wrong at fp16 too)."""
    from gpucompat import api
    from gpucompat.rules.support import calibration
    from gpucompat.rules.support import forms as keys

    rec = api.check(path, profile="litert-mldrift")
    table, model = calibration.Table(calibration.load()), ir.load(path)

    def nodes(codes: set[str]) -> set[tuple[int, int]]:
        return {tuple(n) for f in rec["findings"] if f["code"] in codes for n in f["nodes"]}

    both = {n for n in nodes({"GPU005"})
            if table.status(keys.form_of(model.graphs[n[0]].ops[n[1]]), "fp16") == "wrong"}
    return {"codes": sorted({f["code"] for f in rec["findings"]}), "ops_wrong": rec["summary"]["ops_wrong"],
            "ops_unmeasured": rec["summary"]["ops_unmeasured"],
            "wrong_at": {"fp32": len(nodes(WRONG_FP32)), "fp16": len(nodes({"GPU008", "PREC408"}) | both)}}


def agreement(precision_verdict: dict, said: dict, precision: str) -> str:
    """How `check` stands to one precision's verdict: "agree", "warned" (wrong, and check names a
    form never measured), "silent" (wrong, check says nothing) or "false alarm"."""
    flagged = said["wrong_at"][precision] > 0
    if precision_verdict["wrong"] == flagged:
        return "agree"
    if precision_verdict["wrong"]:
        return "warned" if said["ops_unmeasured"] else "silent"
    return "false alarm"


def judge(path: str, mode: str, twin: str | None = None, precisions: tuple[str, ...] = PRECISIONS) -> dict:
    """One zoo model's numerics record: per precision the accelerator's verdict (or why it gave no
    outputs), and how `check` stands to each (`checked`); `twin`, a full-int8 model's fp32 twin's path."""
    from gpucompat.verification.placements import placements_by_subgraph

    data = open(path, "rb").read()
    model = ir.from_bytes(data, path)
    graph = model.graphs[0]
    inputs = feeds(graph)
    if inputs is None or any(t.dtype != dtypes.FLOAT32 for t in graph.outputs):
        return {"skipped": "inputs or outputs are not float"}
    where = placements_by_subgraph(model, "litert-mldrift")
    if mode == "int8" and twin is None:
        return {"skipped": "no float twin to judge full int8 against"}
    try:
        if mode == "int8":
            reference, int8_cpu = cpu(open(twin, "rb").read(), inputs, twin), cpu(data, inputs, path)
        else:
            reference, int8_cpu = cpu(reference_bytes(data, mode, where), inputs, path), None
    except GpucompatError as e:  # a custom op the CPU has no kernel for (MediaPipe's Landmarks2TransformMatrix)
        return {"skipped": str(e).replace(f"{path}: ", "").split(": ", 1)[-1][:200]}
    record: dict = {}
    for precision in precisions:
        ran = on_accelerator(path, graph, inputs, precision)
        if "error" in ran:
            record[precision] = {"error": ran["error"]}
            continue
        want, half = reference, None
        if precision == "fp16" and int8_cpu is None:
            want = cpu(half_rounded(reference_bytes(data, mode, where), where), inputs, path)
        elif precision == "fp16":
            twin_data = open(twin, "rb").read()
            half = cpu(half_rounded(twin_data, placements_by_subgraph(ir.from_bytes(twin_data), "litert-mldrift")),
                       inputs, twin)
        record[precision] = {**verdict(ran["outputs"], want, precision, int8_cpu, half), "whole": ran["whole"],
                             "device_errors": ran["device_errors"][:1]}
    return checked(record, path)


def checked(record: dict, path: str) -> dict:
    """`record` with what `check` says now of the model and how that stands to each precision's
    verdict (run again after the calibration table changes)."""
    if "skipped" in record:
        return record
    said = flags(path)
    out = {**record, "check": said}
    for precision in PRECISIONS:
        if "wrong" in record.get(precision, {}):
            out[precision] = {**record[precision], "check": agreement(record[precision], said, precision)}
    return out


def after_fix(path: str, mode: str, twin: str | None = None) -> dict:
    """What `gpucompat fix --profile litert-mldrift` makes of the model without a Vulkan device (the
    calibration alone decides what it may delegate), and the fixed model's fp32 numerics record
    when it wrote one: a fix must never turn a model the accelerator computes right into a wrong one."""
    import json
    import os
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        fixed = os.path.join(tmp, "fixed.tflite")
        nowhere = os.path.join(tmp, "none.json")
        env = {**os.environ, "GPUCOMPAT_VULKAN_DIR": tmp, "VK_DRIVER_FILES": nowhere, "VK_ICD_FILENAMES": nowhere}
        env.pop("GPUCOMPAT_REQUIRE_VULKAN", None)
        proc = subprocess.run([sys.executable, "-m", "gpucompat", "fix", os.path.abspath(path), "-o", fixed,
                               "--profile", "litert-mldrift", "--format", "json"],
                              capture_output=True, text=True, env=env, cwd=tmp)
        try:
            applied = [e["rewrite"] for e in json.loads(proc.stdout)["applied"]]
        except (ValueError, KeyError):
            applied = []
        if not applied or not os.path.exists(fixed):
            return {"exit": proc.returncode, "applied": applied}
        return {"exit": proc.returncode, "applied": applied, **judge(fixed, mode, twin, ("fp32",))}


def table_digest() -> str:
    """The shipped calibration table's digest: what `check` and `fix` judged a record under."""
    import hashlib

    from gpucompat.rules.support.calibration import PATH

    with open(PATH, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()[:16]
