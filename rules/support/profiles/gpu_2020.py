"""gpu-2020: the GPU delegate of 2020 (about TF 2.2-2.5).

Sources: a 2020 tensorflow/lite/delegates/gpu/common/model_builder.cc (ElementwiseOperationParser's
IsTwoArgumentOperation = DIV, POW, SQUARED_DIFF, SUB and IsTwoArgumentOperationWithConst =
MINIMUM, MAXIMUM, SUB; IsActivationSupported still refusing SIGMOID; FULLY_CONNECTED capped at 4;
LSTM exactly v2, basic kernel); tensorflow/tensorflow @ 021bfd4e8001ca9ded726921e90d61594c044419 g3doc/performance/
gpu_advanced.md. Partitioning as today (FP16GraphPartitionHelper, N largest). 5-D tensors were not
filtered before Parse (tensorflow#39920: "has bad input dims size: 5" killed the delegation).
MediaPipe custom ops were accepted at partitioning but their Parse called ParseCustomAttributes,
which returned Unimplemented in open-source builds.
"""

from dataclasses import replace

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support import predicates as p
from gpucompat.rules.support.profile import Profile
from gpucompat.rules.support.profiles import gpu_2019
from gpucompat.rules.support.profiles import gpu_current as current
from gpucompat.rules.support.profiles.gpu_current import entry

NO_SIGMOID = gpu_2019.NO_SIGMOID
ONE_ARG = current.ONE_ARG  # cap 2, one runtime input
TWO_RUNTIME = replace(gpu_2019.TWO_RUNTIME, max_version=2)
WITH_CONST = entry(2, p.io_counts(1, const=1))
MEDIAPIPE_2020 = ("RoIToTransformMatrix", "RoIToTransformMatrixV2", "TransformTensor", "TransformTensorBilinearV2",
                  "TransformLandmarks", "TransformLandmarksV2", "Landmarks2TransformMatrix",
                  "Landmarks2TransformMatrixV2", "AlignmentPointsToTransformMatrix")

OPS = {
    **gpu_2019.OPS,
    **{B[n]: ONE_ARG for n in ("ABS", "COS", "EXP", "LOG", "LOGISTIC", "RSQRT", "SIN", "SQRT", "SQUARE", "TANH")},
    **{B[n]: TWO_RUNTIME for n in ("DIV", "POW", "SQUARED_DIFFERENCE")},
    B["SUB"]: entry(2, p.operands(), p.fused_activation(NO_SIGMOID)),
    B["MAXIMUM"]: WITH_CONST,
    B["MINIMUM"]: WITH_CONST,
    B["ADD"]: replace(gpu_2019.ADD, max_version=2),
    B["MUL"]: replace(gpu_2019.MUL, max_version=3),
    B["CONCATENATION"]: replace(gpu_2019.OPS[B["CONCATENATION"]], max_version=2),
    B["CONV_2D"]: entry(3, p.conv_inputs, p.requires_options, p.STRIDES, p.DILATIONS, p.fused_activation(NO_SIGMOID),
                        p.runtime_weights_channels),
    B["DEPTHWISE_CONV_2D"]: entry(3, p.conv_inputs, p.requires_options, p.STRIDES, p.DILATIONS,
                                  p.fused_activation(NO_SIGMOID), p.depthwise_shapes),
    B["FULLY_CONNECTED"]: replace(gpu_2019.FULLY_CONNECTED, max_version=4),
    B["MEAN"]: entry(None, p.io_counts(1, const=1), p.mean_over_hw),
    B["MIRROR_PAD"]: current.OPS[B["MIRROR_PAD"]],
    B["PAD"]: current.PAD,
    B["RESIZE_BILINEAR"]: replace(gpu_2019.OPS[B["RESIZE_BILINEAR"]], max_version=3),
    B["RESIZE_NEAREST_NEIGHBOR"]: current.RESIZE_NEAREST,
    B["SLICE"]: current.OPS[B["SLICE"]],
    B["SPACE_TO_DEPTH"]: current.OPS[B["SPACE_TO_DEPTH"]],
    B["TRANSPOSE"]: current.OPS[B["TRANSPOSE"]],
    B["DEQUANTIZE"]: entry(2, p.io_counts(1), quant_only=True),
    B["QUANTIZE"]: entry(None, p.io_counts(1), quant_only=True),
}

CUSTOM_OPS = {
    **gpu_2019.CUSTOM_OPS,
    **{name: entry(None, p.unavailable("MediaPipe op: accepted at partitioning, but open-source builds cannot "
                                       "parse its attributes (ParseCustomAttributes is unimplemented)", "parse"))
       for name in MEDIAPIPE_2020},
}

PROFILE = Profile(
    name="gpu-2020",
    title="TFLite GPU delegate, 2020 code",
    description="The 2020 GPU delegate (TF 2.2-2.5): the N largest partitions, experimental quantized ops.",
    ops=OPS,
    custom_ops=CUSTOM_OPS,
    runtime_types=frozenset({dtypes.FLOAT32, dtypes.FLOAT16}),
    quant_types=frozenset({dtypes.INT8, dtypes.UINT8}),
    max_rank=gpu_2019.NO_RANK_LIMIT,
    sources=("tensorflow/lite/delegates/gpu/common/model_builder.cc (2020; found by code search, no commit)",
             "tensorflow/tensorflow@021bfd4e8001ca9ded726921e90d61594c044419 "
             "tensorflow/lite/g3doc/performance/gpu_advanced.md"),
    fallback_backend="gl",  # delegate.cc DelegateKernelCore::Setup: OpenCL first, then OpenGL
)
