"""--localize on LiteRT's real GPU accelerator: the first op, in execution order, whose output
diverges from the reference interpreter's.

The accelerator keeps no intermediates a caller can read, so a copy of the model names every float
tensor an op of the main subgraph writes as an extra model output (and signature output), runs once
on the accelerator, and each, graph outputs included, is compared in execution order with the
reference interpreter's intermediate of the same tensor (builtin kernels, all tensors kept). An
extra output can change what the accelerator fuses; the answer is the first divergent op of that
copy, which computes the same ops.

Tensors computed from constants alone (a DEQUANTIZE of fp16 weights, a DENSIFY of sparse ones) are
not probed: the runtime never writes them (the GPU reads the weights directly; XNNPACK unpacks them
into its own buffers, and fails to set up when one is a model output), and their readers' outputs
show what became of them (an unwritten weight spoils the op reading it).

A shader that does not compile (a device error in the log, AcceleratorRun.device_errors) leaves
its op's output unwritten: zeros or stale memory, which is the divergence found; the error is
quoted as the cause. When the op the calibration (rules/support/calibration/) saw fail with that
same error comes earlier in the same GPU partition and none of its outputs was seen right (a
comparison, whose bool output is not probed), that op is the answer."""

from __future__ import annotations

import os
import re
import tempfile

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.ir import dtypes
from gpucompat.rules.support import calibration
from gpucompat.rules.support.forms import form_of, judged
from gpucompat.verification.tolerance import Tolerance, max_abs_error

PROBE = "gpucompat_probe_"
_POSITION = re.compile(r":\d+:\d+ ")  # a WGSL error's line and column, which differ from shader to shader


def compared_tensors(graph: ir.Graph) -> list[ir.Tensor]:
    """Every float tensor an op of `graph` writes from a runtime value, in execution order (graph
    outputs included): not those computed from constants alone, which the runtime never writes."""
    folded: set[int] = set()
    out = []
    for op in graph.ops:
        if all(t.is_constant or id(t) in folded for t in op.present_inputs):
            folded.update(id(t) for t in op.outputs)
            continue
        out += [t for t in op.outputs if t.dtype in (dtypes.FLOAT32, dtypes.FLOAT16) and not t.is_dynamic]
    return out


def with_probes(data: bytes) -> tuple[bytes, list[ir.Tensor]]:
    """The model with every compared tensor of subgraph 0 as an output too; (its bytes, the
    compared tensors in execution order)."""
    model = ir.from_bytes(data)
    graph = model.graphs[0]
    compared = compared_tensors(graph)
    probes = [t for t in compared if not graph.is_graph_output(t)]
    graph.outputs.extend(probes)
    sigs = [s for s in (model.fb.signatureDefs or []) if s.subgraphIndex in (0, None)]
    for i, t in enumerate(probes):
        for s in sigs:
            tm = fb.TensorMapT()
            tm.name = f"{PROBE}{i}"
            tm.tensorIndex = t.index
            s.outputs.append(tm)
            model.signature_links.append((tm, t))
    return ir.to_bytes(model), compared


def first_divergent_op(data: bytes, feeds: list[np.ndarray], precision: str, tol: Tolerance) -> dict | None:
    """{"index", "op", "tensor", "placement", "max_abs_error", "cause"} of the first op whose output
    on the accelerator (at `precision`) diverges beyond `tol`, None when none does; "cause" is the
    device error the runtime logged, if any. The placement is the litert-mldrift prediction (the
    accelerator's own account is not read at inference). A one-line GpucompatError when the copy
    with the probes cannot run."""
    from gpucompat.runners.litert_gpu.infer import run_on_accelerator
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    probed, compared = with_probes(data)
    if not compared:
        return None
    inputs = [t.index for t in compared[0].graph.inputs]
    with tempfile.TemporaryDirectory(prefix="gpucompat-localize-") as tmp:
        path = os.path.join(tmp, "probed.tflite")
        with open(path, "wb") as f:
            f.write(probed)
        try:
            run = run_on_accelerator(path, [feeds], inputs, [t.index for t in compared], precision=precision,
                                     partly=True)
        except GpucompatError as e:
            why = str(e).removeprefix(f"{path}: ")
            raise GpucompatError(f"--localize: the copy of the model with its {len(compared)} float intermediates as "
                                 f"outputs does not run ({why})") from None
    reference = reference_interpreter(data, "the model", preserve=True, xnnpack=False,
                                      input_shapes=[np.shape(f) for f in feeds])
    run_reference(reference, feeds)
    errors: dict[int, float | None] = {}
    for t, got in zip(compared, run.outputs[0]):
        errors[t.index] = _divergence(np.asarray(got), reference.get_tensor(t.index), tol)
        if errors[t.index] != 0.0:
            return _blame(ir.from_bytes(data).graphs[0], t.producer.index, errors, run.device_errors, precision)
    return None


def _divergence(got: np.ndarray, want: np.ndarray, tol: Tolerance) -> float | None:
    """0.0 when `got` is within `tol` of `want`, else its largest error (None: not finite, or
    another size)."""
    want = want.astype(np.float64)
    if got.size != want.size:
        return None
    got = got.astype(np.float64).reshape(want.shape)
    if not tol.failing(got, want).any():
        return 0.0
    error = max_abs_error(got, want)
    return error if np.isfinite(error) else None


def _blame(graph: ir.Graph, index: int, errors: dict[int, float | None], device_errors: list[str],
           precision: str) -> dict:
    """The record of the op to blame when op `index` of `graph` (the model without probes) writes
    the first divergent tensor (`errors`: every tensor compared so far, by index): that op, unless
    the runtime logged a device error, the op runs in a GPU partition, and an op of that partition
    up to it, none of whose outputs was seen right, has a form the calibration saw fail with the
    same error (a comparison, say, whose bool output is not probed): then that op."""
    from gpucompat.placement import check_model
    from gpucompat.rules.support.profile import Options
    from gpucompat.rules.support.profiles.litert_mldrift import PROFILE

    result = check_model(graph.model, PROFILE, Options())
    placed = {o.index: o for o in result.ops if o.subgraph == 0}
    op, cause, at = graph.ops[index], device_errors[0] if device_errors else None, placed[index]
    if device_errors and at.placement == "gpu" and at.partition is not None:
        table = calibration.for_profile(PROFILE)
        unseen = [graph.ops[i] for i in sorted(result.subgraphs[0].subsets[at.partition].nodes) if i <= index
                  and not any(errors.get(t.index) == 0.0 for t in graph.ops[i].outputs)]
        op, cause = next(((o, e) for o in unseen for e in device_errors if _failed_with(table, o, precision, e)),
                         (op, cause))
    out = next((t for t in op.outputs if t.index in errors), op.outputs[0])
    return {"index": op.index, "op": op.name, "tensor": out.name, "placement": placed[op.index].placement,
            "max_abs_error": errors.get(out.index), "cause": cause}


def _failed_with(table: calibration.Table, op: ir.Op, precision: str, logged: str) -> bool:
    """Whether the calibration saw `op`'s form fail to build with the device error `logged` at
    `precision` (line and column aside), on either kind of adapter."""
    if not judged(op):  # a DEQUANTIZE of a constant: folded, no shader of its own
        return False
    seen = (table.observed(form_of(op)) or {}).get(precision, {})
    recorded = (seen.get("error"), seen.get("without_f16", {}).get("error"))
    return any(r and _POSITION.sub(" ", r) == _POSITION.sub(" ", logged) for r in recorded)
