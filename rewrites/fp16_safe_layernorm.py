"""fp16-safe-layernorm: the converter's LayerNorm ==> the same LayerNorm in a scaled domain.

    mean = MEAN(x)                          S = MAXIMUM(REDUCE_MAX(ABS(x)) * 1/8, 1)   (per row)
    var = MEAN(SQUARED_DIFFERENCE(x, mean)) xs = x / S,  mean_s = MEAN(xs)
    r = RSQRT(var + eps)             ==>    var_s = MEAN(SQUARED_DIFFERENCE(xs, mean_s))
                                            mean = mean_s * S,  r = RSQRT(var_s + eps / S / S) / S

TensorFlow's converter writes keras.layers.LayerNormalization over the last axis as the left side
(gpucompat/fp16_patterns.py), then x * r * gamma + (beta - mean * r * gamma); litert-torch writes
torch.nn.LayerNorm the same way with the reduced axes dropped ([rows], a RESHAPE back to
[1, rows, 1] before the SQUARED_DIFFERENCE), and the rewrite writes `mean` and `r` in that shape. Its squares pass
fp16's 65504 once |x - mean| reaches 256, and at the GPU's default precision the variance becomes
inf and the output beta. In the scaled domain |xs| <= 8, so the squares stay below 256, and
var = S^2 var_s, var + eps = S^2 (var_s + eps / S^2), rsqrt(var + eps) = rsqrt(var_s + eps / S^2) / S:
the same values in exact arithmetic. eps / S / S rather than eps / S^2, since S^2 itself passes
65504 once |x| passes 2048. `mean` and `r` keep their tensors, so every reader after them (gamma,
beta, the centring) is unchanged.

Safety: equivalent (x / S and the products round differently in fp32).
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.fp16_patterns import LayerNorm, is_scaled, layer_norm_at
from gpucompat.ir import Op, dtypes
from gpucompat.rewrites.engine import Rewrite, RewriteContext
from gpucompat.rewrites.matching import of_type, sole_reader
from gpucompat.rewrites.substitute import Replacement, planned

SCALE_DIVISOR = 8.0  # S = max(max|x| / 8, 1): |x / S| <= 8, squares of differences <= 256


class Fp16SafeLayerNorm(Rewrite):
    name = "fp16-safe-layernorm"
    safety = "equivalent"
    priority = 40  # after cleanup, fold-constants and the substitutions, before the fusions
    summary = "LayerNorm (MEAN, SQUARED_DIFFERENCE, MEAN, RSQRT) is computed in a scaled domain, right at fp16"

    def candidates(self, graph, ctx):
        return of_type(graph, "RSQRT")

    def check(self, op: Op, ctx: RewriteContext) -> Replacement | str | None:
        ln = layer_norm_at(op)
        if ln is None or is_scaled(ln.x):
            return None
        return _refusal(ln) or planned(op, ln.ops, ctx, lambda r: _plan(ln, r))

    def rewrite(self, match: Replacement, ctx: RewriteContext) -> None:
        graph = match.graph
        at = min(graph.op_index(op) for op in match.ops)
        replaced = {id(op) for op in match.ops}
        graph.ops[:] = [op for op in graph.ops[:at] if id(op) not in replaced] + match.new + \
            [op for op in graph.ops[at:] if id(op) not in replaced]
        graph.link()


def _refusal(ln: LayerNorm) -> str | None:
    """Why the pattern cannot be rewritten: its inner tensors read elsewhere, or not float32."""
    for t in (ln.x, ln.mean.outputs[0], ln.rsqrt.outputs[0]):
        if t.dtype != dtypes.FLOAT32 or t.is_dynamic:
            return f"{t.name!r} is not a static-shape FLOAT32 tensor"
    for inner, reader in ((ln.square, ln.variance), (ln.variance, ln.add_eps), (ln.add_eps, ln.rsqrt)):
        if sole_reader(inner.outputs[0]) is not reader:
            return f"{inner.outputs[0].name!r} is read outside the LayerNorm"
    return None


def _plan(ln: LayerNorm, r: Replacement) -> str | None:
    """The scaled ops into `r`, the last two writing the original mean and RSQRT tensors."""
    x = ln.x
    row = (*x.shape[:-1], 1)
    axis = r.const("axis", [x.rank - 1])
    magnitude = r.emit("ABS", [x], x.shape)
    row_max = r.emit("REDUCE_MAX", [magnitude, axis], row, _keep_dims())
    eighth = r.emit("MUL", [row_max, r.const("one_eighth", np.array([1.0 / SCALE_DIVISOR], np.float32))], row,
                    fb.MulOptionsT())
    scale = r.emit("MAXIMUM", [eighth, r.const("one", np.array([1.0], np.float32))], row, fb.MaximumMinimumOptionsT())
    xs = r.emit("DIV", [x, scale], x.shape, fb.DivOptionsT())
    mean_s = r.emit("MEAN", [xs, axis], row, _keep_dims())
    squares = r.emit("SQUARED_DIFFERENCE", [xs, mean_s], x.shape, fb.SquaredDifferenceOptionsT())
    variance_s = r.emit("MEAN", [squares, axis], row, _keep_dims())
    eps_over_s = r.emit("DIV", [r.const("epsilon", np.array([ln.epsilon], np.float32)), scale], row, fb.DivOptionsT())
    eps_s = r.emit("DIV", [eps_over_s, scale], row, fb.DivOptionsT())
    inverse_s = r.emit("RSQRT", [r.emit("ADD", [variance_s, eps_s], row, fb.AddOptionsT())], row)
    _write(r, "MUL", [mean_s, scale], ln.mean.outputs[0], row, fb.MulOptionsT())
    _write(r, "DIV", [inverse_s, scale], ln.rsqrt.outputs[0], row, fb.DivOptionsT())
    return None


def _write(r: Replacement, name: str, inputs, out, row: tuple[int, ...], options) -> None:
    """`name` of `inputs` at the row shape into the existing tensor `out`; through a RESHAPE when
    `out` drops the reduced axes (litert-torch's [rows] where the row shape is [1, rows, 1])."""
    if out.shape == row:
        r.emit(name, inputs, out, options)
    else:
        r.reshape(r.emit(name, inputs, row, options), out)


def _keep_dims():
    options = fb.ReducerOptionsT()
    options.keepDims = True
    return options
