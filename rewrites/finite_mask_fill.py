"""finite-mask-fill: an attention mask's -inf fill becomes -30000.

    m = SELECT_V2(keep, 0, -inf); p = SOFTMAX(scores + m)
        ==>  m = SELECT_V2(keep, 0, -30000); p = SOFTMAX(scores + m)

LiteRT's GPU accelerator computes a SOFTMAX row as NaN when its first four elements are all -inf
(rules/support/masks.py, PREC410). A fill of -30000 masks the same keys: exp(-30000 - max) is 0 in
float32 and in half, and -30000 is a half value, so the fill survives fp16. Each constant holding
-inf that reaches a delegated SOFTMAX gets a copy with every -inf replaced, read by the op on the
mask's path (any other reader of the constant keeps it). Only under the profiles of LiteRT's
accelerator (a release), where it was measured.

Safety: equivalent (the masked probabilities are exactly 0 either way unless a score is within
30000 of the fill; the CPU clamps -inf to the float range in its ADD anyway).
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, build
from gpucompat.rewrites.engine import Match, Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type
from gpucompat.rules.support.masks import infinite_fills

FILL = -30000.0


class FiniteMaskFill(Rewrite):
    name = "finite-mask-fill"
    safety = "equivalent"
    priority = 25  # after fold-constants (a fill behind DEQUANTIZE is folded first), before the substitutions
    summary = "an attention mask's -inf fill feeding a SOFTMAX becomes -30000 (the accelerator's NaN rows)"

    def candidates(self, graph, ctx):
        return of_type(graph, "SOFTMAX")

    def check(self, op: Op, ctx: RewriteContext) -> Match | str | None:
        if ctx.profile.release is None or not infinite_fills(op):
            return None
        if ctx.rejects(op):
            return "the profile leaves this SOFTMAX on the CPU"
        return Match(op, [op])

    def rewrite(self, match: Match, ctx: RewriteContext) -> None:
        graph = match.anchor.graph
        for fill, reader in infinite_fills(match.anchor):
            value = np.asarray(fill.data())
            finite = build.constant(graph, f"{fill.name}/finite", np.where(np.isneginf(value), FILL, value)
                                    .astype(value.dtype))
            reader.set_inputs([finite if t is fill else t for t in reader.inputs])
