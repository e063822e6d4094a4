"""gpu-2019: the GPU delegate code of 2019 (about TF 1.14-2.1).

Sources: uve/tensorflow @ e08079463bf43e5963acc41da1f57e95603f8080 and KabirKwatra/tensorflow @
046d666c16947dba9853a679d21883af94e7c687,
tensorflow/lite/delegates/gpu/common/model_builder.cc (parsers, IsActivationSupported,
GetOpsToReplace). What differs from today:
- delegation is the longest supported prefix of the execution plan (`partitioning="prefix"`);
- every elementwise op is capped at version 1, and two-argument ops (other than ADD/MUL) need two
  runtime inputs;
- fused SIGMOID is rejected; runtime tensors must be FLOAT32/FLOAT16 (no quantized ops at all);
- no rank filter before Parse: a 5-D tensor makes Parse (and the whole delegation) fail.

FP16 models: the 2019 code removed constant FP16 DEQUANTIZE nodes from the graph before choosing
the prefix (GetOpsToReplaceFromGraphWithDequantize). We express that with the profile's
`fp16_dequantize_helper` (consumers read the FP16 constant directly); see the engine note in the
tests for how the prefix must then skip those nodes.
"""

from dataclasses import replace

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support import predicates as p
from gpucompat.rules.support.profile import Profile
from gpucompat.rules.support.profiles import gpu_current as current
from gpucompat.rules.support.profiles.gpu_current import entry

NO_SIGMOID = (0, 1, 2, 3, 4)  # IsActivationSupported before 2021: SIGN_BIT and SIGMOID rejected
NO_RANK_LIMIT = 1 << 30  # IsAllAllowedTensors had no rank test yet; ExtractTensorShape fails at Parse

ONE_ARG = replace(current.ONE_ARG, max_version=1)
TWO_RUNTIME = entry(1, p.io_counts(2, const=0), p.fused_activation(NO_SIGMOID))
POOL = entry(1, p.requires_options, p.io_counts(1), p.KERNELS, p.STRIDES, p.fused_activation(NO_SIGMOID))
CONV_2D = entry(1, p.io_counts(1), p.requires_options, p.STRIDES, p.DILATIONS, p.fused_activation(NO_SIGMOID))
DEPTHWISE_CONV_2D = entry(2, p.io_counts(1), p.requires_options, p.STRIDES, p.DILATIONS,
                          p.fused_activation(NO_SIGMOID), p.depthwise_multiplier_on_single_channel)
ADD = entry(1, p.input_count(2, "ADD requires two input tensors."), p.fused_activation(NO_SIGMOID),
            p.operands("parse"))
MUL = entry(1, p.input_count(2, "MUL requires two input tensors."), p.fused_activation(NO_SIGMOID),
            p.operands("parse"))
FULLY_CONNECTED = entry(1, p.requires_options, p.fully_connected_options, p.fused_activation(NO_SIGMOID))
LSTM = entry(2, p.exact_version(2), p.requires_options, p.io_counts(3, outputs=4, const=2), p.basic_lstm_params)
RELU = replace(current.RELU, max_version=1)

OPS = {
    **{B[n]: ONE_ARG for n in ("ABS", "COS", "LOG", "LOGISTIC", "RSQRT", "SIN", "SQRT", "SQUARE", "TANH")},
    **{B[n]: TWO_RUNTIME for n in ("DIV", "POW", "SQUARED_DIFFERENCE", "SUB")},
    B["ADD"]: ADD,
    B["MUL"]: MUL,
    B["AVERAGE_POOL_2D"]: POOL,
    B["MAX_POOL_2D"]: POOL,
    B["CONCATENATION"]: entry(1, p.requires_options, p.fused_activation(NO_SIGMOID, "parse")),
    B["CONV_2D"]: CONV_2D,
    B["DEPTHWISE_CONV_2D"]: DEPTHWISE_CONV_2D,
    B["FULLY_CONNECTED"]: FULLY_CONNECTED,
    B["HARD_SWISH"]: current.OPS[B["HARD_SWISH"]],
    B["LSTM"]: LSTM,
    B["PAD"]: entry(1, p.io_counts(1), p.paddings_4x2_no_batch),
    **{B[n]: RELU for n in ("RELU", "RELU6", "LEAKY_RELU")},
    B["PRELU"]: current.PRELU,
    B["RESHAPE"]: current.RESHAPE,
    B["RESIZE_BILINEAR"]: entry(1, p.io_counts(1), p.requires_options, p.resize_flags),
    B["SOFTMAX"]: replace(current.SOFTMAX, max_version=1),
    B["STRIDED_SLICE"]: replace(current.STRIDED_SLICE, max_version=1),
    B["TRANSPOSE_CONV"]: replace(current.TRANSPOSE_CONV, max_version=1),
}

CUSTOM_OPS = {name: current.CUSTOM_OPS[name]
              for name in ("Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D")}

PROFILE = Profile(
    name="gpu-2019",
    title="TFLite GPU delegate, 2019 code",
    description="The 2019 GPU delegate (TF 1.14-2.1): float only, longest supported prefix of the plan.",
    ops=OPS,
    custom_ops=CUSTOM_OPS,
    partitioning="prefix",
    runtime_types=frozenset({dtypes.FLOAT32, dtypes.FLOAT16}),
    max_rank=NO_RANK_LIMIT,
    sources=("uve/tensorflow@e08079463bf43e5963acc41da1f57e95603f8080 "
             "tensorflow/lite/delegates/gpu/common/model_builder.cc",
             "KabirKwatra/tensorflow@046d666c16947dba9853a679d21883af94e7c687 "
             "tensorflow/lite/delegates/gpu/common/model_builder.cc"),
)
