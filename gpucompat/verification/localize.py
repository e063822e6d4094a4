"""--localize: the first op, in execution order, whose output diverges beyond tolerance.

Hybrid execution runs again in recording mode on the inputs of the first failing run, and every
recorded tensor (each GPU op's output, each CPU partition's outputs) is compared with the
reference interpreter's intermediate of the same tensor (builtin kernels, all tensors kept:
XNNPACK would not keep the intermediates of the graph it takes over).
"""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.opencl.executor import dequantize
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.tolerance import Tolerance, max_abs_error


def first_divergent_op(model: ir.Model, data: bytes, where: dict[int, list[str]], runtime,
                       feeds: list[np.ndarray], tol: Tolerance) -> dict | None:
    """{"index", "op", "tensor", "placement", "max_abs_error"} of the first divergent op, or None
    when every recorded tensor is within tolerance (the error appeared only in an output). `data`:
    the reference's model bytes (the float reference of a hybrid-quantized model), whose tensor
    indices are `model`'s; `tol`: the tolerance an intermediate is held to."""
    from gpucompat.verification.hybrid import HybridRunner

    runner = HybridRunner(model, where[0], runtime, record=True, called=where)
    runner.run(feeds)
    reference = reference_interpreter(data, model.path or "the model", preserve=True, xnnpack=False,
                                      input_shapes=[np.shape(f) for f in feeds])
    run_reference(reference, feeds)
    for op, placement in zip(runner.model.graphs[0].ops, where[0]):
        for t in op.outputs:
            if id(t) not in runner.recorded:
                continue
            got = dequantize(t, np.asarray(runner.recorded[id(t)]))
            want = dequantize(t, reference.get_tensor(t.index)).reshape(got.shape)
            if tol.failing(got, want).any():
                error = max_abs_error(got, want)
                return {"index": op.index, "op": op.name, "tensor": t.name, "placement": placement,
                        "max_abs_error": error if np.isfinite(error) else None}
    return None
