"""gpu-current: the classic TFLite GPU delegate V2 as shipped today (LiteRT snapshot).

Sources, in google-ai-edge/LiteRT @ f67457790c9c2ab67347d6fe53270e8d3df20868:
tflite/delegates/gpu/common/model_builder.cc (NewOperationParser, the parsers'
CheckMaxSupportedOpVersion caps and Parse, IsAllAllowedTensors), tflite/tools/versioning/
gpu_compatibility.cc (CheckGpuDelegateCompatibility), model_builder_helper.cc (ExtractTensorShape),
delegates/gpu/delegate.cc (SPLIT/SPLIT_V excluded without OpenCL), common/selectors/
operation_selector.cc (OpenCL/Metal kernels) and gl/kernels/registry.cc (OpenGL kernels).

Older generations (gpu_2020, gpu_2019, gpu_2019_docs) are built from this table: `entry` and the
entries below are shared wherever the facts are the same. On the gl backend the profile adds what
the classic GL delegate was measured to fail to build (rules/support/gl_measured.py: V2's GL path
has the same kernels and builder); the older generations do not.
"""

from collections.abc import Iterable

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support import gl_measured
from gpucompat.rules.support import predicates as p
from gpucompat.rules.support.profile import Check, OpSupport, Profile

NO_GL = frozenset({"cl", "metal"})  # gl/kernels/registry.cc has no shader for these
NO_CL = frozenset({"gl"})  # operation_selector.cc has no case for FLOOR/FLOOR_DIV/FLOOR_MOD


def entry(max_version: int | None = None, *checks: Check, backends: frozenset[str] | None = None,
          input_types: Iterable[int] = (), output_types: Iterable[int] = (), quant_only: bool = False) -> OpSupport:
    """An op entry whose checks end with the Parse-time BHWC mapping every parser applies to its
    runtime tensors (model_builder_helper.cc ExtractTensorShape: rank 0 fails at Parse)."""
    return OpSupport(max_version, (*checks, p.shape_mappable), frozenset(input_types), frozenset(output_types),
                     backends, quant_only)


# ElementwiseOperationParser: one-argument ops, cap 2 (GC one-argument group: 1 runtime, 0 const).
ONE_ARG_CHECKS = (p.io_counts(1, const=0),)
ONE_ARG = entry(2, *ONE_ARG_CHECKS)
# GC two-argument group + MB Parse identical-input refusal (only ADD/MUL are rewritten), cap 2.
TWO_ARG_CHECKS = (p.operands(), p.fused_activation(), p.identical_inputs)
TWO_ARG = entry(2, *TWO_ARG_CHECKS)
# ReLUOperationParser: cap 2, no other check.
RELU = entry(2)
# Pooling2DOperationParser: cap 2; GC CheckPooling2DGpuDelegateCompatibility.
POOL = entry(2, p.requires_options, p.io_counts(1), p.KERNELS, p.STRIDES, p.fused_activation())
# ReduceOperationParser: no cap; GC reduce group; no OpenGL shaders.
REDUCE = entry(None, p.io_counts(1), p.int32_const_axes(), backends=NO_GL)
# Resize2DOperationParser: cap 3; GL resize.cc only upsamples.
RESIZE_NEAREST = entry(3, p.io_counts(1), p.requires_options, p.gl_upsampling)
# PadOperationParser: cap 2; GC pad group; paddings read as a constant at Parse.
PAD = entry(2, p.io_counts(1), p.paddings_shape)
# ElementwiseOperationParser for GREATER/.../NOT_EQUAL: cap 2, consumer rule, BOOL output.
COMPARISON = entry(2, p.comparison_consumer, p.identical_inputs, output_types={dtypes.BOOL}, backends=NO_GL)
# Conv2DOperationParser: cap 6; GC kTfLiteBuiltinConv2d; Parse runtime-weight channels; GL conv.cc.
CONV_2D = entry(6, p.conv_inputs, p.requires_options, p.STRIDES, p.DILATIONS, p.fused_activation(),
                p.runtime_weights_channels, p.no_const_weights(1, "gl", "convolution"))
# DepthwiseConvolutionOperationParser: cap 6; GC CheckDepthwiseConvGpuDelegateCompatibility.
DEPTHWISE_CONV_2D = entry(6, p.conv_inputs, p.requires_options, p.STRIDES, p.DILATIONS, p.fused_activation(),
                          p.depthwise_shapes, p.runtime_depthwise_multiplier,
                          p.no_const_weights(1, "gl", "depthwise convolution"))
# TransposeConvBuiltinOperationParser: cap 3; data is input 2, weights input 1.
TRANSPOSE_CONV = entry(3, p.conv_inputs, p.requires_options, p.STRIDES,
                       p.no_const_weights(1, "gl", "transposed convolution"))
# ConcatenationOperationParser: cap 2; activation fused at Parse.
CONCATENATION = entry(2, p.requires_options, p.fused_activation(layer="parse"))
# FullyConnectedOperationParser: cap 9; GC FullyConnected; Parse channel match.
FULLY_CONNECTED = entry(9, p.requires_options, p.fully_connected_options, p.fully_connected_channels,
                        p.fused_activation(layer="parse"))
# ADD (ElementwiseOperationParser, cap 2): GC checks only the input count and broadcast; operand
# counts and the fused activation are met at Parse.
ADD = entry(2, p.input_count(2, "ADD requires two input tensors."), p.broadcast_standard, p.requires_options,
            p.operands("parse"), p.fused_activation(layer="parse"))
# MUL (cap 3): GC also checks the fused activation.
MUL = entry(3, p.input_count(2, "MUL requires two input tensors."), p.broadcast_standard, p.requires_options,
            p.fused_activation(), p.operands("parse"))
RESHAPE = entry(1, p.io_counts(1))  # ReshapeOperationParser: cap 1; new shape from the output tensor
SOFTMAX = entry(2, p.requires_options, p.softmax_beta_one)  # SoftmaxOperationParser: cap 2, beta == 1
PRELU = entry(1, p.prelu_alpha)  # PReLUOperationParser: IsSupported checks only the version
STRIDED_SLICE = entry(4, p.requires_options, p.strided_slice_masks,
                      p.input_count(4, "STRIDED_SLICE requires 4 inputs.", at_least=True),
                      p.input_rank_in((3, 4), "STRIDED_SLICE supports for 3 or 4 dimensional tensors only."),
                      p.const_input(1, "begin", "parse"), p.const_input(2, "end", "parse"),
                      p.const_input(3, "strides", "parse"), p.positive_slice_strides)
# DequantizeOperationParser / QuantizeOperationParser exist only with quantized ops allowed.
DEQUANTIZE = entry(3, p.dequantize_input, quant_only=True)
QUANTIZE = entry(2, p.io_counts(1), p.quantized_output, quant_only=True)
# LSTMOperationParser: cap 4; GC kTfLiteBuiltinLstm.
LSTM = entry(4, p.requires_options, p.lstm)
# Custom ops (NewOperationParser kTfLiteBuiltinCustom; GC CheckCustomOpsGpuDelegateCompatibility).
TRANSPOSE_CONV_BIAS = entry(None, p.input_count(2, "Requested index goes beyond array size: 1 vs {n}", at_least=True),
                            p.custom_params("conv"))
MAX_POOL_ARGMAX = entry(2, p.custom_params("pool"), p.io_counts(1, outputs=2))
MAX_UNPOOLING = entry(None, p.io_counts(2), p.custom_params("pool"), backends=NO_GL)
MEDIAPIPE_NAMES = ("TransformTensorBilinear", "TransformLandmarks", "Landmarks2TransformMatrix")
MEDIAPIPE_OSS = entry(None, p.unavailable(
    "MediaPipe op: its GPU parser is only in Google/MediaPipe builds; open-source builds refuse it"))

OPS = {
    **{B[n]: ONE_ARG for n in ("ABS", "COS", "ELU", "EXP", "GELU", "LOG", "LOGISTIC", "NEG", "RSQRT", "SIN",
                               "SQRT", "SQUARE", "TANH")},
    B["FLOOR"]: entry(2, *ONE_ARG_CHECKS, backends=NO_CL),
    B["SIGN"]: entry(2, *ONE_ARG_CHECKS, backends=NO_GL),
    **{B[n]: TWO_ARG for n in ("SUB", "DIV", "POW", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM")},
    **{B[n]: entry(2, *TWO_ARG_CHECKS, backends=NO_CL) for n in ("FLOOR_DIV", "FLOOR_MOD")},
    B["LOGICAL_AND"]: entry(2, *TWO_ARG_CHECKS, input_types={dtypes.BOOL}, output_types={dtypes.BOOL},
                            backends=NO_GL),
    **{B[n]: COMPARISON for n in ("GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL")},
    B["ADD"]: ADD,
    B["ADD_N"]: entry(2, p.input_count(2, "ADD_N only supports 2 inputs."), p.operands("parse")),
    B["MUL"]: MUL,
    **{B[n]: RELU for n in ("RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU")},
    B["AVERAGE_POOL_2D"]: POOL,
    B["MAX_POOL_2D"]: POOL,
    B["BATCH_MATMUL"]: entry(None, p.input_count(2, "Expected 2 inputs and 1 output, got: {n} inputs and 1 outputs"),
                             p.batch_matmul_operands, backends=NO_GL),
    B["CAST"]: entry(None, p.cast_from_bool, p.io_counts(1), p.cast_types, input_types={dtypes.BOOL, dtypes.INT32},
                     output_types={dtypes.INT32, dtypes.BOOL}, backends=NO_GL),
    B["CONCATENATION"]: CONCATENATION,
    B["CONV_2D"]: CONV_2D,
    B["CUMSUM"]: entry(1, p.cumsum, backends=NO_GL),
    B["DENSIFY"]: entry(1, p.io_counts(0), p.sparse_input),
    B["DEPTH_TO_SPACE"]: entry(None, p.io_counts(1), p.requires_options, p.block_size_above_one),
    B["DEPTHWISE_CONV_2D"]: DEPTHWISE_CONV_2D,
    B["DEQUANTIZE"]: DEQUANTIZE,
    B["FULLY_CONNECTED"]: FULLY_CONNECTED,
    B["GATHER"]: entry(1, p.gather, input_types={dtypes.INT32}, backends=NO_GL),
    B["HARD_SWISH"]: entry(None, p.io_counts(1)),
    B["LSTM"]: LSTM,
    B["MEAN"]: entry(None, p.io_counts(1, const=1), p.int32_const_axes(), p.gl_mean_hw),
    B["MIRROR_PAD"]: entry(2, p.requires_options, p.mirror_pad_reflect, p.io_counts(1), p.paddings_shape),
    B["ONE_HOT"]: entry(1, p.one_hot, input_types={dtypes.INT32}, backends=NO_GL),
    B["PACK"]: entry(None),
    B["PAD"]: PAD,
    B["PADV2"]: PAD,
    B["PRELU"]: PRELU,
    B["QUANTIZE"]: QUANTIZE,
    **{B[n]: REDUCE for n in ("REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "SUM")},
    B["RESHAPE"]: RESHAPE,
    B["RESIZE_BILINEAR"]: entry(3, p.io_counts(1), p.requires_options, p.resize_flags, p.gl_upsampling),
    B["RESIZE_NEAREST_NEIGHBOR"]: RESIZE_NEAREST,
    **{B[n]: entry(1, p.select_v2, input_types={dtypes.BOOL}, backends=NO_GL) for n in ("SELECT", "SELECT_V2")},
    B["SLICE"]: entry(2, p.input_count(3, "SLICE requires 3 inputs, but node has {n} inputs.", at_least=True),
                      p.input_rank_in((3, 4), "SLICE supports for 3 or 4 dimensional tensors only, but node has "
                                              "{rank} dimensional tensors."),
                      p.const_input(1, "begin", "parse"), p.const_input(2, "size", "parse")),
    B["SOFTMAX"]: SOFTMAX,
    B["SPACE_TO_DEPTH"]: entry(2, p.io_counts(1), p.requires_options, p.block_size_above_one),
    B["SPLIT"]: entry(None, p.const_input(0, "axis", "parse"), backends=NO_GL),
    B["SPLIT_V"]: entry(None, p.const_input(2, "axis", "parse"), backends=NO_GL),
    B["STRIDED_SLICE"]: STRIDED_SLICE,
    B["TILE"]: entry(None, p.io_counts(1)),
    B["TRANSPOSE"]: entry(4, p.io_counts(1), backends=NO_GL),
    B["TRANSPOSE_CONV"]: TRANSPOSE_CONV,
    B["UNPACK"]: entry(None, backends=NO_GL),  # UnpackOperationParser: Parse emits SPLIT
}

CUSTOM_OPS = {
    "Convolution2DTransposeBias": TRANSPOSE_CONV_BIAS,
    "MaxPoolingWithArgmax2D": MAX_POOL_ARGMAX,
    "MaxUnpooling2D": MAX_UNPOOLING,
    "Resampler": entry(None, p.io_counts(2), p.resampler_shapes),
    **{name + suffix: MEDIAPIPE_OSS for name in MEDIAPIPE_NAMES for suffix in ("", "V2")},
}

PROFILE = Profile(
    name="gpu-current",
    title="TFLite GPU delegate V2 (current)",
    description="The classic OpenCL/OpenGL/Metal GPU delegate as shipped in TFLite/LiteRT today.",
    # on gl, the GL kernels' and builder's build failures measured on the classic GL delegate
    ops=gl_measured.with_checks(OPS, gl_measured.BUILD, gl_measured.BUILD_BY_OP, gl_measured.on_gl),
    custom_ops=CUSTOM_OPS,
    runtime_types=frozenset({dtypes.FLOAT32, dtypes.FLOAT16}),
    quant_types=frozenset({dtypes.INT8, dtypes.UINT8}),
    excluded_without_opencl=frozenset({B["SPLIT"], B["SPLIT_V"]}),
    sources=("google-ai-edge/LiteRT@f67457790c9c2ab67347d6fe53270e8d3df20868 "
             "tflite/delegates/gpu/common/model_builder.cc",
             "google-ai-edge/LiteRT@f67457790c9c2ab67347d6fe53270e8d3df20868 "
             "tflite/tools/versioning/gpu_compatibility.cc"),
    fallback_backend="gl",  # delegate.cc DelegateKernelCore::Setup: OpenCL first, then OpenGL
    one_batch_on_gl=True,  # the GL delegate's, measured (rules/support/gl_measured.py)
    prepare_time_ints_on_gl=True,  # the same
)
