"""gpu-2019-docs: what the early-2019 developer-preview docs promised.

Source: uve/tensorflow @ e08079463bf43e5963acc41da1f57e95603f8080
tensorflow/lite/delegates/gpu/README.md (the op list, "16-bit and 32-bit float", every op at
version 1 except DEPTHWISE_CONV_2D v1-2 and LSTM v2 Basic). The preview binary delegated the
supported prefix of the plan and printed "op code #K cannot be handled by this delegate" with K the
BuiltinOperator number. The list is the 2019 code's parsers restricted to the documented ops, with
the documented versions.
"""

from dataclasses import replace

from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support.profiles import gpu_2019

DOC_LIST = ("ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED",
            "LOGISTIC", "LSTM", "MAX_POOL_2D", "MUL", "PAD", "PRELU", "RELU", "RELU6", "RESHAPE",
            "RESIZE_BILINEAR", "SOFTMAX", "STRIDED_SLICE", "SUB", "TRANSPOSE_CONV")
DOC_VERSIONS = {"DEPTHWISE_CONV_2D": 2, "LSTM": 2}

OPS = {B[n]: replace(gpu_2019.OPS[B[n]], max_version=DOC_VERSIONS.get(n, 1)) for n in DOC_LIST}

PROFILE = replace(
    gpu_2019.PROFILE,
    name="gpu-2019-docs",
    title="TFLite GPU delegate, 2019 documentation",
    description="The op list of the 2019 developer-preview docs (v1 only), delegating the supported prefix.",
    ops=OPS,
    custom_ops={},
    unsupported_message="op code #{opcode} cannot be handled by this delegate.",
    sources=("uve/tensorflow@e08079463bf43e5963acc41da1f57e95603f8080 tensorflow/lite/delegates/gpu/README.md",),
)
