"""fp16 emulated without a GPU, for `check --inputs` (PREC409): does the accelerator's default
half precision change the top class of a classifier-like output on the user's own inputs?

The model is rewritten so that every float tensor a GPU-placed op writes is rounded to half (a
CAST to FLOAT16 and back after the op) and every float constant a GPU op reads is rounded to half,
then run beside the stored model on the reference interpreter's builtin kernels (neither TensorFlow
nor OpenCL). What it approximates: the delegate's fp16 stores every tensor and weight as half and
computes in float inside a kernel, which this reproduces op by op. It differs where the delegate
links an elementwise op into the kernel before it (rounding once where this rounds twice), and
where a device accumulates in half (not emulated). `verify --precision fp16` (the executor) or
`verify --runner` on LiteRT's GPU accelerator is the measurement.
"""

from __future__ import annotations

import numpy as np

from gpucompat import ir
from gpucompat.ir import build, dtypes


def rounded_to_half(model_bytes: bytes, gpu_ops: set[int]) -> bytes:
    """The model with the float32 outputs of the main subgraph's ops in `gpu_ops` (plan indices)
    rounded to half after each op, and the float32 constants those ops read rounded to half."""
    model = ir.from_bytes(model_bytes)
    graph = model.graphs[0]
    for op in [op for op in graph.ops if op.index in gpu_ops]:
        op.set_inputs([_half_constant(graph, t) if t is not None and t.is_constant and t.dtype == dtypes.FLOAT32
                       else t for t in op.inputs])
        for t in [t for t in op.outputs if t.dtype == dtypes.FLOAT32]:
            half = build.tensor(graph, f"{t.name}/half", t.shape, dtypes.FLOAT16, t.signature)
            back = build.tensor(graph, f"{t.name}/half as float", t.shape, dtypes.FLOAT32, t.signature)
            graph.replace_uses(t, back)
            at = graph.op_index(op) + 1
            graph.insert_op(at, build.operator(graph, "CAST", [t], [half]))
            graph.insert_op(at + 1, build.operator(graph, "CAST", [half], [back]))
    return ir.to_bytes(model)


def _half_constant(graph: ir.Graph, t: ir.Tensor) -> ir.Tensor:
    """A copy of a float32 constant with its values rounded to half."""
    value = np.asarray(t.data(), np.float32)
    return build.constant(graph, f"{t.name}/half", value.astype(np.float16).astype(np.float32))


def class_flips(model: ir.Model, model_bytes: bytes, gpu_ops: set[int], samples: list[list[np.ndarray]],
                what: str) -> dict[int, dict]:
    """Output index -> its task-level record (task_metrics.TaskStats) for every classifier-like
    output whose top class the emulated fp16 changes on some sample."""
    from gpucompat.verification.interpreter import reference_interpreter, run_reference
    from gpucompat.verification.task_metrics import TaskStats, classifier_like

    outputs = [i for i, t in enumerate(model.graphs[0].outputs) if classifier_like(t) and t.dtype == dtypes.FLOAT32]
    if not outputs or not gpu_ops:
        return {}
    stored = reference_interpreter(model_bytes, what, xnnpack=False)
    half = reference_interpreter(rounded_to_half(model_bytes, gpu_ops), f"{what} (fp16 emulated)", xnnpack=False)
    stats = {i: TaskStats(classifier=True) for i in outputs}
    for feeds in samples:
        want, got = run_reference(stored, feeds, what), run_reference(half, feeds, what)
        for i in outputs:
            stats[i].add(np.asarray(got[i], np.float64), np.asarray(want[i], np.float64))
    return {i: s.record() for i, s in stats.items() if s.flip_count}
