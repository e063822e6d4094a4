"""RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (opencl/resize.cl) with every align_corners /
half_pixel_centers combination."""

from __future__ import annotations

from gpucompat.ir import Op
from gpucompat.opencl.executor import Executor, Step
from gpucompat.opencl.ops.registry import lowering, options

KERNELS = {"RESIZE_BILINEAR": "resize_bilinear", "RESIZE_NEAREST_NEIGHBOR": "resize_nearest"}


def scale(size_in: int, size_out: int, align_corners: bool) -> float:
    """Input pixels per output pixel (kernels/internal/reference: align_corners maps the corner
    pixels onto each other)."""
    if align_corners and size_out > 1:
        return (size_in - 1) / (size_out - 1)
    return size_in / size_out


@lowering(*KERNELS)
def resize(ex: Executor, op: Op) -> Step:
    """Bilinear or nearest resizing with the op's align_corners / half_pixel_centers, one launch."""
    o = options(op)
    src, out = op.inputs[0], op.outputs[0]
    si, so = ex.shape(src), ex.shape(out)
    factors = (float(scale(si.h, so.h, o.alignCorners)), float(scale(si.w, so.w, o.alignCorners)))
    flags = (int(o.alignCorners), int(o.halfPixelCenters))
    args = (ex.tensor(src), si.dims, ex.tensor(out), so.dims, factors, flags)
    return ex.prepare("resize", KERNELS[op.name], (so.w, so.h, so.b * so.slices), *args)
