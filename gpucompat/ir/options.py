"""Which builtin-options table each builtin op reads.

Mirrors tensorflow/lite/core/api/flatbuffer_conversions.cc (ParseOpData): each Parse* function
reads `op->builtin_options_as_<Table>()` of one fixed table; ops that read none are absent here.
Most tables are named after the op (ADD -> AddOptions); the exceptions are listed."""

from __future__ import annotations

from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import opcodes

_TABLES = {k: v for k, v in vars(fb.BuiltinOptions).items() if not k.startswith("_") and k != "NONE"}
_POOL = "Pool2DOptions"
_REDUCER = "ReducerOptions"
_RANDOM = "RandomOptions"
# flatbuffer_conversions.cc: the ops whose table is not "<OpInCamelCase>Options".
_OTHER_NAME = {
    "AVERAGE_POOL_2D": _POOL, "MAX_POOL_2D": _POOL, "L2_POOL_2D": _POOL,
    "CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
    "CONV_3D": "Conv3DOptions", "CONV_3D_TRANSPOSE": "Conv3DOptions",
    "L2_NORMALIZATION": "L2NormOptions", "LSH_PROJECTION": "LSHProjectionOptions",
    "LSTM": "LSTMOptions", "RNN": "RNNOptions", "SVDF": "SVDFOptions",
    "UNIDIRECTIONAL_SEQUENCE_RNN": "SequenceRNNOptions",
    "UNIDIRECTIONAL_SEQUENCE_LSTM": "UnidirectionalSequenceLSTMOptions",
    "BIDIRECTIONAL_SEQUENCE_RNN": "BidirectionalSequenceRNNOptions",
    "BIDIRECTIONAL_SEQUENCE_LSTM": "BidirectionalSequenceLSTMOptions",
    "BATCH_TO_SPACE_ND": "BatchToSpaceNDOptions", "SPACE_TO_BATCH_ND": "SpaceToBatchNDOptions",
    "MEAN": _REDUCER, "SUM": _REDUCER, "REDUCE_PROD": _REDUCER, "REDUCE_MAX": _REDUCER,
    "REDUCE_MIN": _REDUCER, "REDUCE_ANY": _REDUCER, "REDUCE_ALL": _REDUCER,
    "TOPK_V2": "TopKV2Options", "MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
    "PADV2": "PadV2Options", "BATCH_MATMUL": "BatchMatMulOptions", "ATAN2": "ATan2Options",
    "RANDOM_STANDARD_NORMAL": _RANDOM, "RANDOM_UNIFORM": _RANDOM, "MULTINOMIAL": _RANDOM,
}


def _table(op_name: str) -> int | None:
    table = _OTHER_NAME.get(op_name, "".join(p.capitalize() for p in op_name.split("_")) + "Options")
    return _TABLES.get(table)


EXPECTED: dict[int, int] = {code: t for name, code in opcodes.BUILTIN.items() if (t := _table(name)) is not None}


def table_name(union_type: int) -> str:
    """The schema's name of a BuiltinOptions union type (1 -> "Conv2DOptions")."""
    return next((k for k, v in _TABLES.items() if v == union_type), f"unknown type {union_type}")
