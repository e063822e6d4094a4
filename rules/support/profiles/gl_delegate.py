"""gl-delegate: the classic TFLite GPU delegate's OpenGL ES path (V1, `TfLiteGpuDelegateCreate`) as
MediaPipe's desktop and Linux builds create it, measured.

It shares the model builder and the GL kernels of `gpu-current` (V2), so its entries are
gpu-current's, with what was measured on it (mediapipe 0.10.21's build, Mesa's llvmpipe, through
confirm/gl_runner.py; docs/profiles.md "gl-delegate and gpu-current --backend gl"):
- quantized ops are disallowed in this build (allow_quant_ops=false), whatever the app asks: int8
  tensors and QUANTIZE/DEQUANTIZE of int8 stay on the CPU (fp16 constants behind DEQUANTIZE are
  still folded by the partition helper);
- SPLIT and SPLIT_V are not left out when OpenCL is missing (V2 does that in delegate.cc): the GL
  delegate takes them, then fails the build ("No shader implementation for split");
- there is no fallback: a build failure leaves the whole model on the CPU;
- every form the numerics grid measured to fail to build alone on it (calibration/gl_delegate.json,
  "build": "Batch size mismatch, expected 7 but got 1", "ADD: Batch size is not equal to 1", ...)
  fails the delegation of any model that holds it, and every form it measured left on the CPU
  ("untaken") is refused at partitioning;
- what the form keys do not say, measured on one-op models: a grouped CONV_2D (input channels a
  multiple of the filter's) fails the build (2 groups "Convolution does not support more than 1
  group", more "No shader implementation for split"); a DEPTHWISE_CONV_2D with a depth multiplier
  above 1 on an input of more than one channel is left on the CPU (mediapipe pins an older model
  builder than gpu-current's).
"""

from dataclasses import replace

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support import gl_measured as measured
from gpucompat.rules.support.profiles import gpu_current as current

CHECKS, BY_OP = (*measured.TAKEN, *measured.BUILD), {**measured.TAKEN_BY_OP, **measured.BUILD_BY_OP}
# mediapipe's pinned builder takes a DENSIFY of int8 weights, which then fails the build ("Unexpected
# data type in sparse tensor", measured)
OPS = {**current.OPS, B["DENSIFY"]: replace(current.OPS[B["DENSIFY"]], output_types=frozenset({dtypes.INT8}))}

PROFILE = replace(
    current.PROFILE,
    name="gl-delegate",
    title="Classic TFLite GPU delegate, OpenGL ES (V1, as MediaPipe builds it)",
    description="TfLiteGpuDelegateCreate: the OpenGL ES delegate MediaPipe's desktop and Linux builds create, "
                "quantized ops disallowed; measured on Mesa's llvmpipe.",
    ops=measured.with_checks(OPS, CHECKS, BY_OP),
    custom_ops=measured.with_checks(current.CUSTOM_OPS, CHECKS, {}),
    backends=("gl",),
    excluded_without_opencl=frozenset(),
    fallback_backend=None,
    quant_ops=False,
    sources=("mediapipe 0.10.21 wheel, TfLiteGpuDelegateCreate (tensorflow/lite/delegates/gpu/gl_delegate.cc), "
             "measured through gpucompat confirm --delegate gl", *current.PROFILE.sources),
)
