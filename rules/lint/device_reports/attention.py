"""Attention on the GPU as DEV603 and DEV605 find it: a SOFTMAX reading BATCH_MATMUL scores."""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.rules.lint.device_reports.families import gpu_ops

_SCORE_STEPS = {"MUL", "DIV", "ADD", "SUB"}  # scaling and masking between the scores and SOFTMAX


def _scores(softmax: Op, rank3: bool) -> Op | None:
    """The BATCH_MATMUL (of rank-3 operands when `rank3`) whose scores reach `softmax` through at
    most two scaling or masking ops; None when there is none."""
    frontier = [softmax.input(0)]
    for _ in range(3):
        producers = [t.producer for t in frontier if t is not None and t.producer is not None]
        for p in producers:
            if p.name == "BATCH_MATMUL" and (not rank3 or (p.input(0) is not None and p.input(0).rank == 3)):
                return p
        frontier = [i for p in producers if p.name in _SCORE_STEPS for i in p.present_inputs]
    return None


def attention(result, analyses, rank3: bool) -> list[tuple[Op, Op]]:
    """(scores BATCH_MATMUL, SOFTMAX) pairs of attention on the GPU (at rank 3 only when `rank3`)."""
    pairs = ((_scores(sm, rank3), sm) for sm in gpu_ops(result, analyses, "SOFTMAX"))
    return [(mm, sm) for mm, sm in pairs if mm is not None]
