"""The calibration corpus: one-op models ("probes"), written without TensorFlow, each asking the
accelerator about one point of the litert-mldrift profile that its delegation decision depends on.

Three kinds of point:
  op       does the delegate take this op type at all (one probe per op type the profile lists,
           and per op type it lists as refused), in the plain form a converter writes it;
  version  the op's version cap: the same probe at the highest version the profile allows and at
           the next one (only for the ops with a cap);
  form     one constraint inside an op type (a GATHER of several constant indices, an INT64
           ARG_MAX, identical operands, ...); `matches` recognizes the same form in any model, so a
           measured difference can be applied to every op of that form (rules/support/profile_file.py).

Each probe is a single op reading model inputs and constants and writing the model output, with
the options and tensor types TensorFlow's converter writes for it (float32 activations, INT32
indices and axes). Probes never change once released: a calibrated profile file names its points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import Op, dtypes
from gpucompat.ir.build import Sketch
from gpucompat.rules.support import predicates as p
from gpucompat.rules.support.context import Context

F32, I32, BOOL = dtypes.FLOAT32, dtypes.INT32, dtypes.BOOL
X = (1, 8, 8, 4)  # the activation every probe reads unless its op needs another shape
FIRST_VERSION = {"BROADCAST_TO": 2}  # the CPU runtime registers no version 1 of these


@dataclass(frozen=True)
class Probe:
    """One point of the profile and the model that measures it."""

    point: str  # "TANH", "TANH v3", "GATHER: several constant indices"
    op: str  # the builtin op type the point belongs to
    kind: str  # "op", "version" or "form"
    write: Callable[[], bytes]
    version: int = 1
    matches: Callable[[Op, Context], bool] | None = None  # form probes: is an op of this form


Writer = Callable[[int], bytes]  # the op's one-op model at a given op version


def _options(name: str, **fields):
    options = getattr(fb, name)()
    for k, v in fields.items():
        setattr(options, k, v)
    return options


def _one(op: str, inputs: list[tuple[str, tuple, int]], consts: list[tuple[str, np.ndarray]], shape: tuple,
         dtype: int = F32, options=None) -> Writer:
    """A writer of the model: `op` reading runtime inputs then constants, writing `shape`."""

    def write(version: int) -> bytes:
        s = Sketch()
        tensors = [s.input(n, sh, dt) for n, sh, dt in inputs] + [s.const(n, v) for n, v in consts]
        s.output(s.op(op, tensors, shape, dtype, options, version))
        return s.to_bytes()

    return write


def _ints(*values) -> np.ndarray:
    return np.asarray(values, np.int32)


def _weights(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _unary(op: str, options=None, dtype: int = F32) -> Writer:
    return _one(op, [("x", X, dtype)], [], X, dtype, options)


def _binary(op: str, options=None, out: int = F32, dtype: int = F32) -> Writer:
    return _one(op, [("a", X, dtype), ("b", X, dtype)], [], X, out, options)


def _reduction(op: str, dtype: int = F32) -> Writer:
    return _one(op, [("x", X, dtype)], [("axes", _ints(1, 2))], (1, 1, 1, 4), dtype,
                _options("ReducerOptionsT", keepDims=True))


def _writers() -> dict[str, Writer]:
    """Every op type's probe writer, in the plain form a converter writes it."""
    w: dict[str, Writer] = {}
    for op in ("ABS", "CEIL", "COS", "EXP", "FLOOR", "LOG", "NEG", "ROUND", "SIN", "SQRT", "SQUARE", "ELU",
               "HARD_SWISH", "SIGN", "RELU_N1_TO_1", "RSQRT", "TANH", "LOGISTIC", "RELU", "RELU6",
               "LOG_SOFTMAX", "L2_NORMALIZATION"):
        w[op] = _unary(op)
    w["GELU"] = _unary("GELU", _options("GeluOptionsT"))
    w["LEAKY_RELU"] = _unary("LEAKY_RELU", _options("LeakyReluOptionsT", alpha=0.1))
    w["LOGICAL_NOT"] = _unary("LOGICAL_NOT", dtype=BOOL)
    for op, options in (("ADD", "AddOptionsT"), ("SUB", "SubOptionsT"), ("MUL", "MulOptionsT"),
                        ("DIV", "DivOptionsT")):
        w[op] = _binary(op, _options(options))
    for op in ("POW", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV", "FLOOR_MOD", "ATAN2"):
        w[op] = _binary(op)
    for op in ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"):
        w[op] = _binary(op, out=BOOL)
    for op in ("LOGICAL_AND", "LOGICAL_OR"):
        w[op] = _binary(op, out=BOOL, dtype=BOOL)
    for op in ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"):
        w[op] = _reduction(op)
    for op in ("REDUCE_ANY", "REDUCE_ALL"):
        w[op] = _reduction(op, BOOL)
    w["CAST"] = _one("CAST", [("x", X, F32)], [], X, I32, _options("CastOptionsT", inDataType=F32, outDataType=I32))
    for op in ("SELECT", "SELECT_V2"):
        w[op] = _one(op, [("c", X, BOOL), ("a", X, F32), ("b", X, F32)], [], X)
    same = _options("Conv2DOptionsT", strideW=1, strideH=1)
    w["CONV_2D"] = _one("CONV_2D", [("x", X, F32)], [("w", _weights(8, 3, 3, 4)), ("b", _weights(8))],
                        (1, 8, 8, 8), options=same)
    w["DEPTHWISE_CONV_2D"] = _one("DEPTHWISE_CONV_2D", [("x", X, F32)], [("w", _weights(1, 3, 3, 4)),
                                  ("b", _weights(4))], X,
                                  options=_options("DepthwiseConv2DOptionsT", strideW=1, strideH=1, depthMultiplier=1))
    up = _options("TransposeConvOptionsT", strideW=2, strideH=2)

    def transpose_conv(version: int) -> bytes:  # (output shape, weights, input)
        s = Sketch()
        shape, weights = s.const("shape", _ints(1, 16, 16, 4)), s.const("w", _weights(4, 3, 3, 4))
        s.output(s.op("TRANSPOSE_CONV", [shape, weights, s.input("x", X)], (1, 16, 16, 4), options=up,
                      version=version))
        return s.to_bytes()

    w["TRANSPOSE_CONV"] = transpose_conv
    w["FULLY_CONNECTED"] = _one("FULLY_CONNECTED", [("x", (1, 16), F32)], [("w", _weights(8, 16)),
                                ("b", _weights(8))], (1, 8), options=_options("FullyConnectedOptionsT"))
    w["BATCH_MATMUL"] = _one("BATCH_MATMUL", [("a", (1, 4, 8), F32), ("b", (1, 8, 6), F32)], [], (1, 4, 6),
                             options=_options("BatchMatMulOptionsT"))
    for op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        w[op] = _one(op, [("x", X, F32)], [], (1, 4, 4, 4), options=_options(
            "Pool2DOptionsT", padding=fb.Padding.VALID, strideW=2, strideH=2, filterWidth=2, filterHeight=2))
    w["SOFTMAX"] = _one("SOFTMAX", [("x", (1, 8), F32)], [], (1, 8), options=_options("SoftmaxOptionsT", beta=1.0))
    w["CONCATENATION"] = _one("CONCATENATION", [("a", X, F32), ("b", X, F32)], [], (1, 8, 8, 8),
                              options=_options("ConcatenationOptionsT", axis=3))
    w["RESHAPE"] = _one("RESHAPE", [("x", X, F32)], [("shape", _ints(1, 64, 4))], (1, 64, 4),
                        options=_options("ReshapeOptionsT", newShape=[1, 64, 4]))
    w["TRANSPOSE"] = _one("TRANSPOSE", [("x", X, F32)], [("perm", _ints(0, 2, 1, 3))], X)
    for op in ("PAD", "PADV2"):
        extra = [("value", np.asarray([1.5], np.float32))] if op == "PADV2" else []
        w[op] = _one(op, [("x", X, F32)], [("paddings", _ints([0, 0], [1, 1], [1, 1], [0, 0])), *extra],
                     (1, 10, 10, 4))
    w["MIRROR_PAD"] = _one("MIRROR_PAD", [("x", X, F32)], [("paddings", _ints([0, 0], [1, 1], [1, 1], [0, 0]))],
                           (1, 10, 10, 4), options=_options("MirrorPadOptionsT", mode=fb.MirrorPadMode.REFLECT))
    w["SLICE"] = _one("SLICE", [("x", X, F32)], [("begin", _ints(0, 1, 1, 0)), ("size", _ints(1, 4, 4, 4))],
                      (1, 4, 4, 4))
    w["STRIDED_SLICE"] = _one("STRIDED_SLICE", [("x", X, F32)], [("begin", _ints(0, 0, 0, 0)),
                              ("end", _ints(1, 8, 8, 4)), ("strides", _ints(1, 2, 2, 1))], (1, 4, 4, 4),
                              options=_options("StridedSliceOptionsT"))
    w["GATHER"] = _one("GATHER", [("x", (8, 8), F32)], [("idx", _ints(3))], (1, 8), options=_options("GatherOptionsT"))
    w["TILE"] = _one("TILE", [("x", X, F32)], [("multiples", _ints(1, 2, 1, 1))], (1, 16, 8, 4))
    w["PACK"] = _one("PACK", [("a", (8, 4), F32), ("b", (8, 4), F32)], [], (2, 8, 4),
                     options=_options("PackOptionsT", valuesCount=2, axis=0))
    for op, options in (("RESIZE_BILINEAR", "ResizeBilinearOptionsT"),
                        ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighborOptionsT")):
        w[op] = _one(op, [("x", X, F32)], [("size", _ints(16, 16))], (1, 16, 16, 4), options=_options(options))
    w["DEPTH_TO_SPACE"] = _one("DEPTH_TO_SPACE", [("x", X, F32)], [], (1, 16, 16, 1),
                               options=_options("DepthToSpaceOptionsT", blockSize=2))
    w["SPACE_TO_DEPTH"] = _one("SPACE_TO_DEPTH", [("x", X, F32)], [], (1, 4, 4, 16),
                               options=_options("SpaceToDepthOptionsT", blockSize=2))
    w["ARG_MAX"] = _one("ARG_MAX", [("x", X, F32)], [("axis", _ints(3))], (1, 8, 8), I32,
                        _options("ArgMaxOptionsT", outputType=I32))
    w["ARG_MIN"] = _one("ARG_MIN", [("x", X, F32)], [("axis", _ints(3))], (1, 8, 8), I32,
                        _options("ArgMinOptionsT", outputType=I32))
    w["PRELU"] = _one("PRELU", [("x", X, F32)], [("alpha", np.full((1, 1, 4), 0.2, np.float32))], X)
    w["REVERSE_V2"] = _one("REVERSE_V2", [("x", X, F32)], [("axis", _ints(1))], X)
    w["BROADCAST_TO"] = _one("BROADCAST_TO", [("x", (1, 1, 8, 4), F32)], [("shape", _ints(*X))], X)
    return w


def _several_constant_indices(op: Op, ctx: Context) -> bool:
    idx = op.input(1)
    return idx is not None and ctx.is_const(idx) and idx.num_elements > 1


def _runtime_indices(op: Op, ctx: Context) -> bool:
    return op.input(1) is not None and not ctx.is_const(op.input(1))


def _int64_output(op: Op, ctx: Context) -> bool:
    return bool(op.outputs) and op.outputs[0].dtype == dtypes.INT64


def _constant_left(op: Op, ctx: Context) -> bool:
    return ctx.is_const(op.input(0))


def _refused_by(check) -> Callable[[Op, Context], bool]:
    """The form a profile predicate refuses: an op matches when `check` rejects it."""
    return lambda op, ctx: not check(op, ctx).ok


def _form_probes() -> list[Probe]:
    """The constraints inside op types that releases were seen to move, or that decide a whole
    compilation (a build failure), each with the model showing it."""
    from gpucompat.rules.support.profiles import litert_mldrift as md

    def write(op: str, inputs, consts, shape, dtype=F32, options=None, quantized=()) -> Callable[[], bytes]:
        def one() -> bytes:
            s = Sketch()
            tensors = [s.input(n, sh, dt) for n, sh, dt in inputs]
            tensors += [s.const(n, v, (0.05, 0) if n in quantized else None) for n, v in consts]
            s.output(s.op(op, tensors, shape, dtype, options))
            return s.to_bytes()
        return one

    def identical(op: str) -> Callable[[], bytes]:
        def one() -> bytes:
            s = Sketch()
            x = s.input("x", X)
            s.output(s.op(op, [x, x], X))
            return s.to_bytes()
        return one

    def constant_left() -> bytes:
        s = Sketch()
        a = s.const("a", _weights(1, 4, 8))
        s.output(s.op("BATCH_MATMUL", [a, s.input("b", (1, 8, 6))], (1, 4, 6), options=_options("BatchMatMulOptionsT")))
        return s.to_bytes()

    gather = _options("GatherOptionsT")
    return [
        Probe("GATHER: several constant indices", "GATHER", "form",
              write("GATHER", [("x", (8, 8), F32)], [("idx", _ints(1, 5, 2))], (3, 8), options=gather),
              matches=_several_constant_indices),
        Probe("GATHER: runtime indices", "GATHER", "form",
              write("GATHER", [("x", (8, 8), F32), ("idx", (3,), I32)], [], (3, 8), options=gather),
              matches=_runtime_indices),
        Probe("ARG_MAX: INT64 output", "ARG_MAX", "form",
              write("ARG_MAX", [("x", X, F32)], [("axis", _ints(3))], (1, 8, 8), dtypes.INT64,
                    _options("ArgMaxOptionsT", outputType=dtypes.INT64)), matches=_int64_output),
        Probe("SUB: both operands the same tensor", "SUB", "form", identical("SUB"),
              matches=_refused_by(p.identical_inputs)),
        Probe("ADD: a runtime scalar with a runtime tensor", "ADD", "form",
              write("ADD", [("a", X, F32), ("s", (), F32)], [], X, options=_options("AddOptionsT")),
              matches=_refused_by(md._no_runtime_scalar_with_tensor)),
        Probe("BATCH_MATMUL: constant left operand", "BATCH_MATMUL", "form",
              constant_left, matches=_constant_left),
        Probe("FULLY_CONNECTED: int8 weights flattening a rank-3 input", "FULLY_CONNECTED", "form",
              write("FULLY_CONNECTED", [("x", (1, 32, 64), F32)],
                    [("w", np.random.default_rng(1).integers(-100, 100, (128, 64)).astype(np.int8))], (32, 128),
                    options=_options("FullyConnectedOptionsT"), quantized=("w",)),
              matches=_refused_by(md._int8_weights_flattening)),
        Probe("PAD: paddings of a rank-2 tensor", "PAD", "form",
              write("PAD", [("x", (8, 4), F32)], [("paddings", _ints([1, 1], [1, 1]))], (10, 6)),
              matches=_refused_by(p.paddings_shape)),
        Probe("SELECT_V2: a rank-2 condition under a batch-1 output", "SELECT_V2", "form",
              write("SELECT_V2", [("c", (4, 8), BOOL), ("a", (1, 2, 4, 8), F32), ("b", (1, 2, 4, 8), F32)], [],
                    (1, 2, 4, 8)),
              matches=_refused_by(md._condition_batch_fits_output)),
        Probe("STRIDED_SLICE: bounds outside the tensor", "STRIDED_SLICE", "form",
              write("STRIDED_SLICE", [("x", (5, 7), F32)], [("begin", _ints(-99, 0)), ("end", _ints(99, 7)),
                    ("strides", _ints(1, 1))], (5, 7), options=_options("StridedSliceOptionsT")),
              matches=_refused_by(md._unclamped_slice)),
    ]


@lru_cache(maxsize=1)
def corpus() -> tuple[Probe, ...]:
    """Every probe: an op probe per op type, the version probes around each cap the profile
    records, and the form probes."""
    from gpucompat.ir.opcodes import BUILTIN
    from gpucompat.rules.support.profiles.litert_mldrift import OPS

    writers = _writers()
    found = [Probe(op, op, "op", partial(w, FIRST_VERSION.get(op, 1)), FIRST_VERSION.get(op, 1))
             for op, w in writers.items()]
    for op, w in writers.items():
        cap = OPS[BUILTIN[op]].max_version if BUILTIN[op] in OPS else None
        if cap is not None:
            found += [Probe(f"{op} v{v}", op, "version", partial(w, v), v) for v in (cap, cap + 1)]
    return (*found, *_form_probes())


def by_point(point: str) -> Probe | None:
    """The probe of a point, None when this gpucompat has no such probe."""
    return next((pr for pr in corpus() if pr.point == point), None)
