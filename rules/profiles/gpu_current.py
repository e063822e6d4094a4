"""gpu-current: the classic TFLite GPU delegate V2 as shipped today (LiteRT snapshot).

Sources: tflite/delegates/gpu/common/model_builder.cc (NewOperationParser, IsAllAllowedTensors),
tflite/tools/versioning/gpu_compatibility.cc (CheckGpuDelegateCompatibility), see
shared/research/gpu_delegate_rules.md §3 for the table this module encodes.
"""

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules import predicates as p
from gpucompat.rules.profile import OpSupport, Profile

_CONV = OpSupport(
    max_version=6,
    checks=(p.io_counts((1, 2)), p.positive_params("strideW", "strideH", "dilationWFactor", "dilationHFactor"),
            p.fused_activation()),
)
_ONE_ARG = OpSupport(max_version=2, checks=(p.io_counts(1, const=0),))

OPS = {
    B["CONV_2D"]: _CONV,
    B["DEPTHWISE_CONV_2D"]: OpSupport(max_version=6, checks=_CONV.checks),
    B["FULLY_CONNECTED"]: OpSupport(max_version=9, checks=(p.fused_activation(),)),
    B["ADD"]: OpSupport(max_version=2, checks=(p.one_or_two_operands,)),
    B["MUL"]: OpSupport(max_version=3, checks=(p.one_or_two_operands, p.fused_activation())),
    B["SUB"]: OpSupport(max_version=2, checks=(p.one_or_two_operands, p.fused_activation(), p.identical_inputs())),
    B["DIV"]: OpSupport(max_version=2, checks=(p.one_or_two_operands, p.fused_activation(), p.identical_inputs())),
    B["MEAN"]: OpSupport(checks=(p.io_counts(1, const=1), p.const_input(1, "axes"))),
    B["RELU"]: OpSupport(max_version=2),
    B["RELU6"]: OpSupport(max_version=2),
    B["TANH"]: _ONE_ARG,
    B["LOGISTIC"]: _ONE_ARG,
}

PROFILE = Profile(
    name="gpu-current",
    title="TFLite GPU delegate V2 (current)",
    description="The classic OpenCL/OpenGL/Metal GPU delegate as shipped in TFLite/LiteRT today.",
    ops=OPS,
    runtime_types=frozenset({dtypes.FLOAT32, dtypes.FLOAT16}),
    quant_types=frozenset({dtypes.INT8, dtypes.UINT8}),
    excluded_without_opencl=frozenset({B["SPLIT"], B["SPLIT_V"]}),
)
