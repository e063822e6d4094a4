"""--localize on LiteRT's real GPU accelerator: the first op, in execution order, whose output
diverges from the reference interpreter's.

The accelerator keeps no intermediates a caller can read, so a copy of the model names every float
tensor an op of the main subgraph writes as an extra model output (and signature output), runs once
on the accelerator, and each is compared with the reference interpreter's intermediate of the same
tensor (builtin kernels, all tensors kept). An extra output can change what the accelerator fuses;
the answer is the first divergent op of that copy, which computes the same ops."""

from __future__ import annotations

import os
import tempfile

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.ir import dtypes
from gpucompat.verification.tolerance import Tolerance

PROBE = "gpucompat_probe_"


def with_probes(data: bytes) -> tuple[bytes, list[ir.Tensor]]:
    """The model with every float op output of subgraph 0 as an output too; (its bytes, the probed
    tensors in execution order)."""
    model = ir.from_bytes(data)
    graph = model.graphs[0]
    probes = [t for op in graph.ops for t in op.outputs
              if t.dtype in (dtypes.FLOAT32, dtypes.FLOAT16) and not t.is_dynamic and not graph.is_graph_output(t)]
    graph.outputs.extend(probes)
    sigs = [s for s in (model.fb.signatureDefs or []) if s.subgraphIndex in (0, None)]
    for i, t in enumerate(probes):
        for s in sigs:
            tm = fb.TensorMapT()
            tm.name = f"{PROBE}{i}"
            tm.tensorIndex = t.index
            s.outputs.append(tm)
            model.signature_links.append((tm, t))
    return ir.to_bytes(model), probes


def first_divergent_op(data: bytes, feeds: list[np.ndarray], precision: str, tol: Tolerance) -> dict | None:
    """{"index", "op", "tensor", "placement", "max_abs_error"} of the first op whose output on the
    accelerator (at `precision`) diverges beyond `tol`, None when none does. The placement is the
    litert-mldrift prediction (the accelerator's own account is not read at inference)."""
    from gpucompat.rules.support.profiles.litert_mldrift import PROFILE
    from gpucompat.runners.litert_gpu.infer import run_on_accelerator
    from gpucompat.verification.interpreter import reference_interpreter, run_reference
    from gpucompat.verification.placements import placements

    probed, probes = with_probes(data)
    graph = probes[0].graph if probes else None
    if graph is None:
        return None
    with tempfile.TemporaryDirectory(prefix="gpucompat-localize-") as tmp:
        path = os.path.join(tmp, "probed.tflite")
        with open(path, "wb") as f:
            f.write(probed)
        run = run_on_accelerator(path, [feeds], [t.index for t in graph.inputs], [t.index for t in probes],
                                 precision=precision, partly=True)
    got = run.outputs[0]
    reference = reference_interpreter(data, "the model", preserve=True, xnnpack=False,
                                      input_shapes=[np.shape(f) for f in feeds])
    run_reference(reference, feeds)
    where = placements(ir.from_bytes(data), PROFILE.name)
    for t, g in zip(probes, got):
        want = reference.get_tensor(t.index).astype(np.float64)
        g = np.asarray(g, np.float64).reshape(want.shape)
        if tol.failing(g, want).any():
            op = t.producer
            error = float(np.max(np.abs(g - want)))
            return {"index": op.index, "op": op.name, "tensor": t.name, "placement": where[op.index],
                    "max_abs_error": None if np.isnan(error) else error}
    return None
