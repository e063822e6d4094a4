"""The Resampler custom op (opencl/resampler.cl): TF Addons' tfa.image.resampler, which the
delegate takes with two runtime inputs (model_builder.cc ResamplerOperationParser): a source
[B, H, W, C] and a warp [B, h, w, >= 2] of (x, y) source coordinates; the output is [B, h, w, C]."""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.registry import lowering


@lowering("Resampler")
def resampler(ex: Executor, op: Op) -> Step:
    """Bilinear sampling of the source at the warp's points, zero outside the source."""
    src, warp = op.input(0), op.input(1)
    if src is None or warp is None:
        raise UnsupportedOp(f"op#{op.index} Resampler: needs a source and a warp input")
    si, wi, so = ex.shape(src), ex.shape(warp), ex.shape(op.outputs[0])
    if si.b != wi.b or wi.c < 2 or (so.h, so.w, so.c) != (wi.h, wi.w, si.c):
        raise UnsupportedOp(f"op#{op.index} Resampler: source {si.dims}, warp {wi.dims} and output {so.dims} "
                            "do not fit (same batch, warp with 2 coordinates, output of the warp's size)")
    args = (ex.tensor(src), si.dims, ex.tensor(warp), wi.dims, ex.tensor(op.outputs[0]), so.dims)
    return ex.prepare("resampler", "resampler", ex.cells(op.outputs[0]), *args)
