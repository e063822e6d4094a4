"""subsample-1x1-conv: a 1x1 CONV_2D at a stride above 1 reads every s-th pixel through a
STRIDED_SLICE and runs at stride 1.

    y = CONV_2D(x, w 1x1, b, stride 2)
        ==>  x2 = STRIDED_SLICE(x, [0,0,0,0], [N,H,W,C], [1,2,2,1]);  y = CONV_2D(x2, w, b, stride 1)

LiteRT's GPU accelerator computes a 1x1 CONV_2D with int8 weights at stride 2 wrongly (the
projection shortcuts of a dynamic-range or full-int8 Keras ResNet50: error 114 of 325, the top
class changes), while the same convolution at stride 1 after a STRIDED_SLICE is right (7e-4).
A 1x1 window at stride s reads pixels 0, s, 2s, ... whatever the padding (SAME pads nothing for a
1x1 window), so the slice picks exactly the pixels the strided convolution reads. Applies only
where the calibration records the convolution's form wrong, and both new forms (the slice, the
convolution at stride 1) right at both precisions, under the profiles it was measured for.

Safety: exact (the same products of the same values).
"""

from __future__ import annotations

import copy

from gpucompat.ir import Op, build
from gpucompat.rewrites.calibrated import CalibratedRewrite, not_measured_right
from gpucompat.rewrites.substitute import Replacement


class Subsample1x1Conv(CalibratedRewrite):
    name = "subsample-1x1-conv"
    safety = "exact"
    priority = 35
    summary = "a 1x1 CONV_2D at a stride above 1 runs at stride 1 after a STRIDED_SLICE"
    op_types = ("CONV_2D",)
    what = "stride-1 convolution"

    def plan(self, op: Op, r: Replacement) -> Op | str | None:
        """STRIDED_SLICE every s-th pixel, then the convolution at stride 1 writing the op's output."""
        x, w, out, o = op.input(0), op.input(1), op.outputs[0], op.options
        if x is None or w is None or o is None or x.rank != 4 or w.rank != 4 or x.is_dynamic:
            return None
        if tuple(w.shape[1:3]) != (1, 1) or (o.strideH, o.strideW) == (1, 1):
            return None
        if max(o.dilationHFactor, o.dilationWFactor) > 1:
            return "a dilated window"
        n, h, wd, c = x.shape
        size = (n, len(range(0, h, o.strideH)), len(range(0, wd, o.strideW)), c)
        if size != tuple(out.shape[:3]) + (c,):
            return f"the output {list(out.shape)} is not every stride-th pixel of the input {list(x.shape)}"
        sliced = r.slice(x, (0, 0, 0, 0), size, (1, o.strideH, o.strideW, 1))
        sliced.fb.quantization = copy.deepcopy(x.fb.quantization)  # full int8: the pixels keep their scale
        why = not_measured_right(r.new[-1], "subsample", r.ctx)
        if why:
            return why
        options = copy.copy(o)
        options.strideH = options.strideW = 1
        new = build.operator(op.graph, op.name, [sliced, *op.inputs[1:]], op.outputs, options, op.version)
        r.new.append(new)
        return new
