"""The numerics grid's families beyond the keyed forms of gpucompat/calibrate/grid.py, written op
by op as a converter writes each op (its options record, operand order and types, version where
the converter raises it), at batch 1 and the sizes of grid.SIZES (the last axis a multiple of 4,
and not):

"op-types": a few forms per rank of every other op type the litert-mldrift profile delegates,
on runtime operands: pooling, resizing and the space ops (rank 4 only), comparisons and logic
(BOOL outputs; EQUAL and NOT_EQUAL on int32 too), SELECT / SELECT_V2, POW, ATAN2, FLOOR_DIV,
FLOOR_MOD, GATHER, TOPK_V2, SPLIT, SPLIT_V, UNPACK, PACK, CAST, ARG_MAX, CUMSUM, REVERSE_V2, TILE,
ONE_HOT, BATCH_MATMUL, QUANTIZE, DEQUANTIZE of a runtime int8 tensor, and the basic-kernel LSTM
(the one the profile takes: a full-kernel LSTM keeps its states in variables, which the model
loader refuses). An op with several outputs gives each form one of them.

"provenance": the same op with one operand taken from each place a converter puts it (STORED):
a float32 constant, a float16 constant behind a DEQUANTIZE (TF's converter with fp16 weights),
an int8 constant behind a DEQUANTIZE (weight-only int8: BATCH_MATMUL, GATHER tables, the
convolutions), an int8 constant the op reads itself (a dynamic-range / hybrid kernel, judged
against the floats it stands for), or a runtime tensor (a weight made on the CPU at run time, as
DENSIFY -> DEQUANTIZE of sparse weights gives it). Every binary elementwise op and comparison
with a constant operand, SELECT / SELECT_V2 with a constant in either value position,
CONCATENATION and PACK with a constant first or last piece (and a ViT's class token), GATHER of
a constant table, TILE of a constant, PADV2's value, PRELU's alpha, BATCH_MATMUL with a constant
second operand; and the convolutions (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV: kernels 1x1
and 3x3, strides 1 and 2, a dilated 3x3) with every kind of weights, a bias or none (CONV_2D and
DEPTHWISE_CONV_2D always have one, as converters write them), plus full-int8 CONV_2D and
DEPTHWISE_CONV_2D. A form's name holds its operand's provenance (a key of STORED; "int8" for a
full-int8 convolution) and ends in the set of sizes: "add_r4_cfull_f16dq_0".

"int8-ops": the ops a full-int8 model is made of (TF's converter with a representative dataset
and TFLITE_BUILTINS_INT8, ai-edge-quantizer's static int8 recipes), as the converter writes them:
int8 runtime operands of one scale and zero point (grid.INT8_IN), int8 constants of their own,
int32 axes, sizes and ids, the converter's int8 op versions, and an int8 output whose scale is
the input's where the converter keeps it (layout ops, pooling, resizing, CONCATENATION), its fixed
one (SOFTMAX, LOGISTIC, TANH) or one fitting the values (arithmetic, reductions, activations):
ADD / SUB / MUL, MEAN / SUM, pooling, RESHAPE, TRANSPOSE, CONCATENATION, SLICE / STRIDED_SLICE,
PAD, resizing, the space ops, the activations, PRELU, GATHER, and the QUANTIZE / DEQUANTIZE at a
model's edges and between two scales. Judged against the CPU's int8 kernels, both dequantized,
within one quantization step (grid.judge). Every name holds "int8": "add_int8_rc_4_0".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import partial

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.calibrate import grid
from gpucompat.calibrate.grid import INT8_IN, INT8_OUT, OPTIONS, SIZES, Form, _ints, options_of, shape_of
from gpucompat.ir import dtypes
from gpucompat.ir.build import Sketch, operator, tensor
from gpucompat.rules.support import forms as keys

F32, I32, BOOL = dtypes.FLOAT32, dtypes.INT32, dtypes.BOOL
# Where a constant operand comes from, as a form's name ends.
STORED = {"f32": "a float32 constant", "f16dq": "a float16 constant behind a DEQUANTIZE (fp16 weights)",
          "i8dq": "an int8 constant behind a DEQUANTIZE (weight-only int8)",
          "i8": "an int8 constant per output channel the op reads itself (a dynamic-range / hybrid kernel)",
          "rt": "a runtime tensor (a weight made on the CPU at run time)"}
FLOATS = ("f32", "f16dq")  # every constant float operand
WEIGHTS = ("f32", "f16dq", "i8dq")  # weights a converter also writes as weight-only int8
CONV_WEIGHTS = ("f32", "f16dq", "i8", "i8dq", "rt")
COMPARISONS = ("LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL")
# binary ops beyond grid's keys.BINARY, and how their operands are drawn (the second one away
# from 0 where it divides, the base of POW above 0)
MORE_BINARY = {"POW": ("away", "normal"), "ATAN2": ("normal", "normal"), "FLOOR_DIV": ("normal", "away"),
               "FLOOR_MOD": ("normal", "away")}
SAME_SHAPES = ("ATAN2",)  # its CPU kernel does not broadcast (atan2.cc: "NumDimensions(a) != NumDimensions(b)")
DRAWS = {**{op: ("normal", "normal") for op in keys.BINARY}, "DIV": ("normal", "away"), **MORE_BINARY,
         **{op: ("halves", "halves") for op in COMPARISONS}}
CONST_FIRST = ("SUB", "DIV", "POW")  # 1 - x, 1 / x, 2 ** x
VERSIONS = {"FLOOR_DIV": 2}  # the converter's version of a float op where it is not 1
# ((kernel height, width), (stride along H, W), dilation) of the convolutions; a 1x1 kernel pads
# VALID (Keras' default), others SAME; the strips (1x3, 3x1) are what Conv1D (dilated in a TCN
# once fix folds its SPACE_TO_BATCH_ND) and separable audio front ends write, at stride 1 and 2
# along their axis; strides above 2 (a raw-audio front end frames at 160) as one of 4
GEOMETRIES = (((1, 1), (1, 1), 1), ((1, 1), (2, 2), 1), ((3, 3), (1, 1), 1), ((3, 3), (2, 2), 1),
              ((3, 3), (1, 1), 2), ((1, 3), (1, 1), 1), ((1, 3), (1, 2), 1), ((1, 3), (1, 1), 2),
              ((3, 1), (1, 1), 1), ((3, 1), (2, 1), 1), ((1, 3), (1, 4), 1), ((3, 1), (4, 1), 1), ((3, 3), (4, 4), 1))
POOLS = ((2, 2, "VALID"), (3, 1, "SAME"), (3, 2, "SAME"))  # (window, stride, padding)
RESIZE_FLAGS = ((False, True), (False, False), (True, False))  # (align_corners, half_pixel_centers)
SELECTS = {"SELECT": "Select", "SELECT_V2": "SelectV2"}  # op -> its options record
CONVOLUTIONS = ("CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV")
# the convolutions a converter always gives a bias: the CPU kernels need one (CONV_2D fails to
# prepare, "has_bias was not true"; DEPTHWISE_CONV_2D without one crashes the interpreter)
BIASED = ("CONV_2D", "DEPTHWISE_CONV_2D")
VIT = (196, 192)  # tokens and width of a ViT-S/16 at 224: its class token concatenation
INT8_TYPED = {"dtype": dtypes.INT8, "quantization": INT8_IN}  # an int8 output of its input's scale
INT8_RANGE = tuple((q - INT8_IN[1]) * INT8_IN[0] for q in (-128, 127))  # the real values of an INT8_IN tensor


@dataclass(frozen=True)
class Runtime:
    """A runtime operand (an input of the form): its shape, how it is drawn (grid.Form) and its
    quantization (scale, zero point) when drawn int8."""

    shape: tuple
    draw: str = "normal"
    quantization: tuple | None = None


@dataclass(frozen=True, eq=False)
class Stored:
    """A constant float operand and where the file keeps it (a key of STORED but "rt"); `axis`:
    the axis of an int8 one's scales, None for one scale."""

    value: np.ndarray
    kind: str = "f32"
    axis: int | None = None


@dataclass(frozen=True, eq=False)
class Quantized:
    """A constant the CPU reference reads as stored too (a full-int8 op's int8 weights, int32
    bias): its values and quantization (scales, zero point) along `axis`."""

    value: np.ndarray
    quantization: tuple
    axis: int = 0


def operand(value: np.ndarray, kind: str, axis: int | None = None):
    """An operand holding `value` from where `kind` (a key of STORED) says; a runtime one is drawn
    from N(0, 1)."""
    return Runtime(value.shape) if kind == "rt" else Stored(value, kind, axis)


def form(name: str, op: str, operands: list, out, dtype: int = F32, options=None, version: int = 1,
         quantization: tuple | None = None, pick: int | None = None) -> Form:
    """A form of one `op` reading `operands` (Runtime, Stored, Quantized, a plain numpy
    constant, or None for an absent optional input), writing `out` (a shape) of `dtype`; with `pick` the op
    writes the outputs `out` lists as (shape, dtype) and the form is output `pick`. A custom op
    is `op` = its code, `options` = its raw custom options (bytes)."""
    draws = [o.draw for o in operands if isinstance(o, Runtime)]
    draw = ",".join(draws) if len(set(draws)) > 1 else (draws or ["normal"])[0]
    hybrid = any(isinstance(o, Stored) and o.kind == "i8" for o in operands)
    return Form(name, partial(_write, op=op, operands=tuple(operands), out=out, dtype=dtype, options=options,
                              version=version, quantization=quantization, pick=pick), draw, hybrid)


def _write(s: Sketch, prefix: str, exact: bool = False, *, op: str, operands: tuple, out, dtype: int, options,
           version: int, quantization: tuple | None, pick: int | None):
    """Add the op of `form` to `s`, its runtime operands named `<prefix>__<j>`; `exact` writes
    the int8 constants a hybrid op reads as the floats they stand for."""
    inputs, j = [], 0
    for k, o in enumerate(operands):
        if o is None:  # an absent optional input
            inputs.append(None)
        elif isinstance(o, Runtime):
            inputs.append(s.input(f"{prefix}__{j}", o.shape, grid._dtype(o.draw), o.quantization))
            j += 1
        else:
            inputs.append(constant(s, f"{prefix}_c{k}", o, exact))
    if isinstance(options, bytes):
        return s.custom(op, inputs, out, options, dtype)
    if pick is None:
        return s.op(op, inputs, out, dtype, options, version, quantization)
    return several(s, op, inputs, out, options, version)[pick]


def constant(s: Sketch, name: str, c, exact: bool = False):
    """The tensor a constant operand is read from (see Stored, Quantized); `exact`: an int8
    constant the op reads itself written as the floats it stands for."""
    if isinstance(c, Quantized):
        return _along(s.const(name, c.value, c.quantization), c.axis)
    if not isinstance(c, Stored):
        return s.const(name, np.asarray(c))
    v = np.asarray(c.value, np.float32)
    if c.kind == "f32":
        return s.const(name, v)
    if c.kind == "f16dq":
        return s.op("DEQUANTIZE", [s.const(f"{name}_16", v.astype(np.float16))], v.shape, version=3)
    q, scale, back = int8_of(v, c.axis)
    if c.kind == "i8" and exact:
        return s.const(name, back)
    stored = _along(s.const(f"{name}_8", q, (scale, 0)), c.axis)
    return stored if c.kind == "i8" else s.op("DEQUANTIZE", [stored], v.shape, version=2)


def _along(t, axis: int | None):
    """`t`'s quantization read along `axis` (Sketch.const quantizes along axis 0)."""
    if axis:
        t.fb.quantization.quantizedDimension = axis
    return t


def int8_of(v: np.ndarray, axis: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`v` as symmetric int8 (zero point 0), its scales (one, or one per index of `axis`), and
    the float values the int8 ones stand for."""
    other = tuple(i for i in range(v.ndim) if i != axis)
    scale = (np.abs(v).max(axis=other, keepdims=True) / 127).astype(np.float32)
    q = np.clip(np.round(v / scale), -127, 127)
    return q.astype(np.int8), scale.ravel(), (q * scale).astype(np.float32)


def several(s: Sketch, op: str, inputs: list, outs: list[tuple], options=None, version: int = 1) -> list:
    """Append `op` reading `inputs` and writing one new tensor per (shape, dtype) of `outs`
    (Sketch.op writes one); return them."""
    made = [tensor(s.graph, f"{op.lower()}_{len(s.graph.ops)}_{k}", shape, dtype) for k, (shape, dtype) in
            enumerate(outs)]
    s.graph.ops.append(operator(s.graph, op, inputs, made, options, version))
    return made


def _shape(r: int, v: int) -> tuple:
    """The rank-`r` shape of size set `v` (grid.SIZES), batch 1 at rank 4."""
    found = shape_of("n" * r, SIZES[v])
    return (1, *found[1:]) if r == 4 else found


def _last(r: int, v: int) -> tuple:
    """The rank-`r` shape broadcasting all but the last axis of _shape(r, v)."""
    return shape_of("1" * (r - 1) + "n", SIZES[v])


def _value(shape: tuple, draw: str, seed: int) -> np.ndarray:
    """A constant of `shape` with values drawn as `draw` says (grid.Form)."""
    return grid._draw(draw, shape, np.random.default_rng(seed))


def _int8(shape: tuple) -> Runtime:
    """A full-int8 model's runtime operand: int8 of INT8_IN's scale and zero point."""
    return Runtime(shape, "int8", INT8_IN)


def _scalar(value, dtype=np.int32) -> np.ndarray:
    return np.asarray(value, dtype)


def _without(shape: tuple, axis: int) -> tuple:
    return shape[:axis] + shape[axis + 1:]


def _with(shape: tuple, axis: int, size: int) -> tuple:
    return shape[:axis] + (size,) + shape[axis + 1:]


def groups() -> dict[str, list[Form]]:
    """The groups of grid.groups() this module adds, each at both sets of sizes."""
    return {name: [f for v in (0, 1) for family in families for f in family(v)]
            for name, families in (("op-types", OP_TYPES), ("provenance", PROVENANCE), ("int8-ops", INT8_OPS))}


# op-types: runtime operands


def _binaries(v: int) -> list[Form]:
    """Every comparison and binary op of MORE_BINARY on two runtime operands of the same shape and
    (but SAME_SHAPES) with the second broadcasting its last axis, ranks 1-4; EQUAL / NOT_EQUAL /
    FLOOR_DIV / FLOOR_MOD on int32 too (by a constant divisor)."""
    found = []
    for op, r in itertools.product((*COMPARISONS, *MORE_BINARY), range(1, 5)):
        x, (da, db) = _shape(r, v), DRAWS[op]
        dtype, version = BOOL if op in COMPARISONS else F32, VERSIONS.get(op, 1)
        pairs = [("rr", x)] + ([] if op in SAME_SHAPES else [("rb", _last(r, v))])
        for tag, other in pairs:
            found.append(form(f"{op.lower()}_{tag}_{r}_{v}", op, [Runtime(x, da), Runtime(other, db)], x, dtype,
                              version=version))
        if op in ("EQUAL", "NOT_EQUAL"):
            found.append(form(f"{op.lower()}_i32_{r}_{v}", op, [Runtime(x, "ids3"), Runtime(x, "ids3")], x, BOOL))
        elif op in ("FLOOR_DIV", "FLOOR_MOD"):
            found.append(form(f"{op.lower()}_i32_{r}_{v}", op, [Runtime(x, "ids100"), _scalar(7)], x, I32))
    return found


def _logic(v: int) -> list[Form]:
    """LOGICAL_AND / LOGICAL_OR (same shape, broadcast), LOGICAL_NOT, and REDUCE_ANY / REDUCE_ALL
    over the last axis (keeping it or not) and over every axis, ranks 1-4, on BOOL tensors."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        for op in ("LOGICAL_AND", "LOGICAL_OR"):
            for tag, other in (("rr", x), ("rb", _last(r, v))):
                found.append(form(f"{op.lower()}_{tag}_{r}_{v}", op, [Runtime(x, "bool"), Runtime(other, "bool")], x,
                                  BOOL))
        found.append(form(f"logical_not_{r}_{v}", "LOGICAL_NOT", [Runtime(x, "bool")], x, BOOL))
        reductions = {((r - 1,), False), ((r - 1,), True), (tuple(range(r)), False)}
        for op, (axes, keep) in itertools.product(("REDUCE_ANY", "REDUCE_ALL"), sorted(reductions)):
            tag = "".join(map(str, axes)) + ("k" if keep else "")
            found.append(form(f"{op.lower()}_{r}_{tag}_{v}", op, [Runtime(x, "bool"), _ints(*axes)],
                              grid._reduced(x, axes, keep), BOOL, options_of("Reducer", keepDims=keep)))
    return found


def _selects(v: int) -> list[Form]:
    """SELECT and SELECT_V2 on runtime operands of one shape, and SELECT_V2 with a condition
    broadcasting its last axis, ranks 1-4."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        for op, tag, cond in (("SELECT", "same", x), ("SELECT_V2", "same", x), ("SELECT_V2", "cond_b", _last(r, v))):
            found.append(form(f"{op.lower()}_{tag}_{r}_{v}", op, [Runtime(cond, "bool"), Runtime(x), Runtime(x)], x,
                              options=options_of(SELECTS[op])))
    return found


def _spatial(size: int, k: int, stride: int, padding: str, dilation: int = 1) -> int:
    """An output extent of a window `k` at `stride` over `size` (TFLite's padding rules)."""
    return -(-size // stride) if padding == "SAME" else (size - (k - 1) * dilation - 1) // stride + 1


def _images(v: int, int8: bool = False) -> list[Form]:
    """The rank-4 ops: AVERAGE_POOL_2D and MAX_POOL_2D per POOLS, RESIZE_BILINEAR and
    RESIZE_NEAREST_NEIGHBOR to twice the size per RESIZE_FLAGS, DEPTH_TO_SPACE and SPACE_TO_DEPTH
    of block 2; `int8`: as a full-int8 model holds them (the first two of POOLS and of
    RESIZE_FLAGS), int8 in and out of one scale, at the converter's int8 versions."""
    x, found = _shape(4, v), []
    _, h, w, c = x
    pools, flags = (POOLS[:2], RESIZE_FLAGS[:2]) if int8 else (POOLS, RESIZE_FLAGS)
    kind, base, typed = ("_int8", 2, INT8_TYPED) if int8 else ("", 1, {})
    runtime = _int8 if int8 else Runtime
    for op, (k, stride, padding) in itertools.product(("AVERAGE_POOL_2D", "MAX_POOL_2D"), pools):
        out = (1, _spatial(h, k, stride, padding), _spatial(w, k, stride, padding), c)
        found.append(form(f"{op.lower()}{kind}_{k}x{k}_s{stride}_{padding.lower()}_{v}", op, [runtime(x)], out,
                          options=options_of("Pool2D", padding=getattr(fb.Padding, padding), strideW=stride,
                                             strideH=stride, filterWidth=k, filterHeight=k), version=base, **typed))
    for (op, cls), (align, half) in itertools.product((("RESIZE_BILINEAR", "ResizeBilinear"),
                                                       ("RESIZE_NEAREST_NEIGHBOR", "ResizeNearestNeighbor")),
                                                      flags):
        tag = "align" if align else "half" if half else "plain"
        found.append(form(f"{op.lower()}{kind}_x2_{tag}_{v}", op, [runtime(x), _ints(2 * h, 2 * w)],
                          (1, 2 * h, 2 * w, c), options=options_of(cls, alignCorners=align, halfPixelCenters=half),
                          version=3 if half else base, **typed))
    return found + [
        form(f"depth_to_space{kind}_2_{v}", "DEPTH_TO_SPACE", [runtime((1, h, w, 4 * c))], (1, 2 * h, 2 * w, c),
             options=options_of("DepthToSpace", blockSize=2), version=base, **typed),
        form(f"space_to_depth{kind}_2_{v}", "SPACE_TO_DEPTH", [runtime((1, 2 * h, 2 * w, c))], (1, h, w, 4 * c),
             options=options_of("SpaceToDepth", blockSize=2), version=base, **typed),
    ]


def _gather(name: str, params, axis: int, count: int = 3, **typed) -> Form:
    """GATHER of `count` runtime int32 indices along `axis` of `params` (an operand); `typed`: the
    form's output dtype, version and quantization."""
    shape = params.shape if isinstance(params, Runtime) else params.value.shape
    return form(name, "GATHER", [params, Runtime((count,), f"ids{shape[axis]}")], _with(shape, axis, count),
                options=options_of("Gather", axis=axis, batchDims=0), **typed)


def _indexing(v: int) -> list[Form]:
    """GATHER of runtime params along every axis above 1, TOPK_V2 (k 2; its values and its
    indices), ARG_MAX over every axis above 1, ONE_HOT of int32 ids of rank 0-3, ranks 1-4."""
    found, depth = [], SIZES[v][0]
    for r in range(1, 5):
        x = _shape(r, v)
        axes = [a for a in range(r) if x[a] > 1]
        found += [_gather(f"gather_{r}_ax{a}_{v}", Runtime(x), a) for a in axes]
        outs = [((*x[:-1], 2), F32), ((*x[:-1], 2), I32)]
        found += [form(f"topk_v2_{r}_{what}_{v}", "TOPK_V2", [Runtime(x), _scalar(2)], outs,
                       options=options_of("TopKV2"), pick=pick) for pick, what in enumerate(("values", "indices"))]
        found += [form(f"arg_max_{r}_ax{a}_{v}", "ARG_MAX", [Runtime(x), _scalar(a)], _without(x, a), I32,
                       options_of("ArgMax", outputType=fb.TensorType.INT32)) for a in axes]
        ids = _shape(r - 1, v)
        found.append(form(f"one_hot_{r - 1}_{v}", "ONE_HOT",
                          [Runtime(ids, f"ids{depth}"), _scalar(depth), _scalar(1.0, np.float32),
                           _scalar(0.0, np.float32)], (*ids, depth), options=options_of("OneHot", axis=-1)))
    return found


def _dynamic_updates(v: int) -> list[Form]:
    """DYNAMIC_UPDATE_SLICE as an LLM's KV cache is written: a runtime operand, a runtime update one
    shorter along each axis above 1, runtime int32 start indices; float32 and int32, ranks 1-4.
    Below rank 4 (every axis above 1) the start is 1 on every axis: drawn, it decided the verdict
    (wrong at a start other than 0, right at 0); at rank 4 it is drawn 0 or 1 (the batch axis of 1
    takes it clamped to 0, as the CPU kernel clamps), right whichever was drawn."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        update = tuple(d - 1 if d > 1 else d for d in x)
        start = "ids2" if r == 4 else "at1"
        for dtype, draw in ((F32, "normal"), (I32, "ids50")):
            found.append(form(f"dynamic_update_slice_{r}_{dtypes.name(dtype).lower()}_{start}_{v}",
                              "DYNAMIC_UPDATE_SLICE", [Runtime(x, draw), Runtime(update, draw), Runtime((r,), start)],
                              x, dtype))
    return found


def _pieces(v: int) -> list[Form]:
    """SPLIT in 2 along every even axis, SPLIT_V in 1 and the rest along every axis above 1 (their
    second piece), UNPACK along the first and the last axis (its second piece), ranks 1-4 (UNPACK
    2-4, and a [3, N, T, D] along its first); PACK of two runtime tensors of rank 0-3 on the first
    and the new last axis."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        for a in range(r):
            d = x[a]
            if d % 2 == 0:
                found.append(form(f"split_{r}_ax{a}_{v}", "SPLIT", [_scalar(a), Runtime(x)],
                                  [(_with(x, a, d // 2), F32)] * 2, options=options_of("Split", numSplits=2), pick=1))
            if d > 1:
                found.append(form(f"split_v_{r}_ax{a}_{v}", "SPLIT_V", [Runtime(x), _ints(1, d - 1), _scalar(a)],
                                  [(_with(x, a, 1), F32), (_with(x, a, d - 1), F32)],
                                  options=options_of("SplitV", numSplits=2), pick=1))
            if r > 1 and a in (0, r - 1) and d > 1:
                found.append(form(f"unpack_{r}_ax{a}_{v}", "UNPACK", [Runtime(x)], [(_without(x, a), F32)] * d,
                                  options=options_of("Unpack", num=d, axis=a), pick=1))
        if r == 4:  # attention's fused query/key/value [3, N, T, D] unpacked along its first axis
            qkv = (3, *x[1:])
            found.append(form(f"unpack_4_qkv_ax0_{v}", "UNPACK", [Runtime(qkv)], [(x[1:], F32)] * 3,
                              options=options_of("Unpack", num=3, axis=0), pick=1))
        piece = _shape(r - 1, v)
        for a in sorted({0, r - 1}):
            found.append(form(f"pack_{r - 1}_ax{a}_{v}", "PACK", [Runtime(piece), Runtime(piece)],
                              piece[:a] + (2,) + piece[a:],
                              options=options_of("Pack", valuesCount=2, axis=a)))
    return found


def _elementwise(v: int) -> list[Form]:
    """CAST int32 -> float32, float32 -> int32 and bool -> float32; CUMSUM along every axis above
    1 (and exclusive, reversed along the last); REVERSE_V2 of every axis above 1; TILE twice along
    each axis; QUANTIZE to int8 and DEQUANTIZE of a runtime int8 tensor; ranks 1-4."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        axes = [a for a in range(r) if x[a] > 1]
        found += [form(f"cast_{tag}_{r}_{v}", "CAST", [Runtime(x, draw)], x, dtype)
                  for tag, draw, dtype in (("i32_f32", "ids100", F32), ("f32_i32", "halves", I32),
                                           ("bool_f32", "bool", F32))]
        for a, exclusive, reverse in [(a, False, False) for a in axes] + [(r - 1, True, False), (r - 1, False, True)]:
            tag = "x" * exclusive + "r" * reverse
            found.append(form(f"cumsum_{r}_ax{a}{tag}_{v}", "CUMSUM", [Runtime(x), _scalar(a)], x,
                              options=options_of("Cumsum", exclusive=exclusive, reverse=reverse)))
        found += [form(f"reverse_v2_{r}_ax{a}_{v}", "REVERSE_V2", [Runtime(x), _ints(a)], x) for a in axes]
        found += [form(f"tile_{r}_ax{a}_{v}", "TILE", [Runtime(x), _ints(*(2 if i == a else 1 for i in range(r)))],
                       _with(x, a, 2 * x[a])) for a in range(r)]
        found.append(form(f"quantize_{r}_{v}", "QUANTIZE", [Runtime(x)], x, dtypes.INT8, quantization=INT8_IN))
        found.append(form(f"dequantize_{r}_{v}", "DEQUANTIZE", [Runtime(x, "int8", INT8_IN)], x, version=2))
    return found


def _matmuls(v: int) -> list[Form]:
    """BATCH_MATMUL of two runtime operands, ranks 2-4, the second transposed (adj_y) or not; the
    basic-kernel LSTM's output and state."""
    k, m, n = SIZES[v][:3]
    found = []
    for batch, adj in itertools.product(((), (2,), (1, 2)), (False, True)):
        rhs = (*batch, n, k) if adj else (*batch, k, n)
        found.append(form(f"batch_matmul_rr_{len(batch) + 2}{'_adjy' if adj else ''}_{v}", "BATCH_MATMUL",
                          [Runtime((*batch, m, k)), Runtime(rhs)], (*batch, m, n),
                          options=options_of("BatchMatMul", adjX=False, adjY=adj)))
    units, inputs = SIZES[v][0], SIZES[v][1]
    lstm = [Runtime((1, inputs)), Runtime((1, units)), Stored(_value((4 * units, inputs + units), "normal", 21)),
            Stored(_value((4 * units,), "normal", 22)), Runtime((1, units))]
    outs = [((1, units), F32), ((1, units), F32), ((1, inputs + units), F32), ((1, 4 * units), F32)]
    options = options_of("LSTM", fusedActivationFunction=fb.ActivationFunctionType.TANH,
                         kernelType=fb.LSTMKernelType.BASIC)
    return found + [form(f"lstm_basic_u{units}_{what}_{v}", "LSTM", lstm, outs, options=options, version=2, pick=pick)
                    for pick, what in enumerate(("activ", "state"))]


def _reshapes(v: int, int8: bool = False) -> list[Form]:
    """RESHAPE from each rank 1-4 to each other of a BOOL tensor (what explicit-rank-4 writes
    around a comparison below rank 4) or, `int8`, of a full-int8 one (one scale in and out)."""
    found = []
    for ri, ro in itertools.permutations(range(1, 5), 2):
        shape = _shape(ri, v)  # leading 1s added, or the leading axes merged
        target = (1,) * (ro - ri) + shape if ro > ri else (int(np.prod(shape[:ri - ro + 1])), *shape[ri - ro + 1:])
        x, typed = (_int8(shape), INT8_TYPED) if int8 else (Runtime(shape, "bool"), {"dtype": BOOL})
        found.append(form(f"reshape_{'int8' if int8 else 'bool'}_{ri}to{ro}_{v}", "RESHAPE", [x, _ints(*target)],
                          target, options=options_of("Reshape", newShape=list(target)), **typed))
    return found


OP_TYPES = (_binaries, _logic, _reshapes, _selects, _images, _indexing, _dynamic_updates, _pieces, _elementwise,
            _matmuls)


# provenance: one operand from each place a converter puts it


def _const_binary(v: int) -> list[Form]:
    """Every binary op (grid's keys.BINARY, MORE_BINARY) and comparison of a runtime tensor of rank
    1-4 with a constant of its shape and (but SAME_SHAPES) a scalar and its last axis, each of
    FLOATS; the constant first for CONST_FIRST."""
    found = []
    for op, r, prov in itertools.product((*keys.BINARY, *MORE_BINARY, *COMPARISONS), range(1, 5), FLOATS):
        x, (da, db) = _shape(r, v), DRAWS[op]
        dtype, options, version = BOOL if op in COMPARISONS else F32, options_of(OPTIONS.get(op)), VERSIONS.get(op, 1)
        shapes = [("full", x)]
        if op not in SAME_SHAPES:
            shapes += [("scalar", ()), *([("last", x[-1:])] if r > 1 else [])]
        for tag, shape in shapes:
            second = [Runtime(x, da), Stored(_value(shape, db, 3), prov)]
            found.append(form(f"{op.lower()}_r{r}_c{tag}_{prov}_{v}", op, second, x, dtype, options, version))
            if op in CONST_FIRST:
                first = [Stored(_value(shape, da, 4), prov), Runtime(x, db)]
                found.append(form(f"{op.lower()}_c{tag}_r{r}_{prov}_{v}", op, first, x, dtype, options, version))
    return found


def _lifted(v: int) -> list[Form]:
    """The forms explicit-rank-4 makes of the MORE_BINARY ops and comparisons below rank 4 (grid's
    keys.BINARY have every shape pair already): a runtime tensor of rank 1-3 with leading 1s up
    to rank 4, and a float32 constant of its shape, a [1, 1, 1, 1] scalar or its last axis, the
    same way up (the constant first for CONST_FIRST)."""
    found = []
    for op, r in itertools.product((*MORE_BINARY, *COMPARISONS), range(1, 4)):
        x, (da, db) = (1,) * (4 - r) + _shape(r, v), DRAWS[op]
        dtype, options, version = BOOL if op in COMPARISONS else F32, options_of(OPTIONS.get(op)), VERSIONS.get(op, 1)
        shapes = [("full", x)] + ([] if op in SAME_SHAPES else [("scalar", (1, 1, 1, 1)), ("last", (1, 1, 1, x[-1]))])
        for tag, shape in shapes:
            second = [Runtime(x, da), Stored(_value(shape, db, 3), "f32")]
            found.append(form(f"{op.lower()}_r{r}to4_c{tag}_f32_{v}", op, second, x, dtype, options, version))
            if op in CONST_FIRST:
                found.append(form(f"{op.lower()}_c{tag}_r{r}to4_f32_{v}", op,
                                  [Stored(_value(shape, da, 4), "f32"), Runtime(x, db)], x, dtype, options, version))
    return found


def _const_selects(v: int) -> list[Form]:
    """SELECT and SELECT_V2 with a runtime condition and one value a constant of each of FLOATS,
    in either position, of the output's shape (SELECT_V2: also a scalar), ranks 1-4."""
    found = []
    for r, prov, pos in itertools.product(range(1, 5), FLOATS, (1, 2)):
        x = _shape(r, v)
        for op, tag, shape in (("SELECT", "full", x), ("SELECT_V2", "full", x), ("SELECT_V2", "scalar", ())):
            operands = [Runtime(x, "bool"), Runtime(x), Runtime(x)]
            operands[pos] = Stored(_value(shape, "normal", 5), prov)
            found.append(form(f"{op.lower()}_r{r}_{'xy'[pos - 1]}_{tag}_{prov}_{v}", op, operands, x,
                              options=options_of(SELECTS[op])))
    return found


def _const_pieces(v: int) -> list[Form]:
    """CONCATENATION along every axis, ranks 1-4, and PACK of pieces of rank 0-3 on the first and
    the new last axis, with a constant first or last piece of each of FLOATS; a ViT's class token
    [1, 1, C] before its patches [1, T, C], at grid's sizes and (the first set) at VIT's."""
    found = []
    for r, prov, first in itertools.product(range(1, 5), FLOATS, (True, False)):
        x, piece, tag = _shape(r, v), _shape(r - 1, v), "cr" if first else "rc"
        found += [form(f"concat_{r}_ax{a}_{tag}_{prov}_{v}", "CONCATENATION", _pair(x, prov, first),
                       _with(x, a, 2 * x[a]), options=options_of("Concatenation", axis=a)) for a in range(r)]
        found += [form(f"pack_{r - 1}_ax{a}_{tag}_{prov}_{v}", "PACK", _pair(piece, prov, first),
                       piece[:a] + (2,) + piece[a:], options=options_of("Pack", valuesCount=2, axis=a))
                  for a in sorted({0, r - 1})]
    tokens = [(SIZES[v][1], SIZES[v][0]), *([VIT] if v == 0 else [])]
    for (t, c), prov in itertools.product(tokens, FLOATS):
        found.append(form(f"concat_class_token_{t}x{c}_{prov}_{v}", "CONCATENATION",
                          [Stored(_value((1, 1, c), "normal", 6), prov), Runtime((1, t, c))], (1, t + 1, c),
                          options=options_of("Concatenation", axis=1)))
    return found


def _pair(shape: tuple, prov: str, first: bool) -> list:
    """A constant of `shape` from `prov` and a runtime tensor of it, the constant first or last."""
    pair = [Stored(_value(shape, "normal", 5), prov), Runtime(shape)]
    return pair if first else pair[::-1]


def _const_operands(v: int) -> list[Form]:
    """GATHER of runtime indices from a constant table of each of WEIGHTS (ranks 1-4 along the
    first axis above 1, rank 2 along its last; an embedding table [1000, 64]); BATCH_MATMUL of a
    runtime tensor of rank 2-4 by a constant of each of WEIGHTS ([K, N], [N, K] read transposed,
    [1, .., K, N] of its rank); and of each of FLOATS: TILE of a constant twice along its first
    axis, PADV2 of a runtime tensor of rank 3-4 along axis 1 or the last with a constant value,
    PRELU with a constant alpha of the last axis, of all but the first (Keras' default) and
    [1, 1, C] (shared axes 1, 2)."""
    found, (k, m, n) = [], SIZES[v][:3]
    for r, prov in itertools.product(range(1, 5), WEIGHTS):
        x = _shape(r, v)
        axes = [a for a in range(r) if x[a] > 1][:1] + ([1] if r == 2 else [])
        found += [_gather(f"gather_c{r}_ax{a}_{prov}_{v}", Stored(_value(x, "normal", 7), prov), a) for a in axes]
        if r > 1:
            batch = ((), (2,), (1, 2))[r - 2]
            for tag, w in (("kn", (k, n)), ("nk", (n, k)), ("same", (*(1,) * len(batch), k, n))):
                if tag != "same" or batch:
                    found.append(form(f"batch_matmul_r{r}_c{tag}_{prov}_{v}", "BATCH_MATMUL",
                                      [Runtime((*batch, m, k)), Stored(_value(w, "normal", 8), prov)],
                                      (*batch, m, n), options=options_of("BatchMatMul", adjY=tag == "nk")))
    if v == 0:
        found += [_gather(f"gather_c2_table_1000x64_{prov}_0", Stored(_value((1000, 64), "normal", 7), prov), 0, 5)
                  for prov in WEIGHTS]
    for r, prov in itertools.product(range(1, 5), FLOATS):
        x = _shape(r, v)
        found.append(form(f"tile_c{r}_ax0_{prov}_{v}", "TILE", [Stored(_value(x, "normal", 9), prov),
                                                                _ints(2, *[1] * (r - 1))], _with(x, 0, 2 * x[0])))
        for a in (1, r - 1) if r >= 3 else ():
            pads = np.asarray([[1, 2] if i == a else [0, 0] for i in range(r)], np.int32)
            found.append(form(f"padv2_{r}_ax{a}_value_{prov}_{v}", "PADV2",
                              [Runtime(x), pads, Stored(np.asarray(1.5, np.float32), prov)], _with(x, a, x[a] + 3)))
        alphas = [("c", x[-1:]), *([("full", x[1:])] if r > 2 else []), *([("11c", (1, 1, x[-1]))] if r == 4 else [])]
        found += [form(f"prelu_{r}_alpha_{tag}_{prov}_{v}", "PRELU", [Runtime(x), Stored(_value(shape, "normal", 10),
                       prov)], x) for tag, shape in alphas]
    return found


def _convolutions(v: int) -> list[Form]:
    """CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV (no dilation) per GEOMETRIES with weights of
    each of CONV_WEIGHTS, a bias or none (BIASED always have one); full-int8 CONV_2D and
    DEPTHWISE_CONV_2D per GEOMETRIES."""
    found = []
    for op, (k, stride, dilation), weights, bias in itertools.product(CONVOLUTIONS, GEOMETRIES, CONV_WEIGHTS,
                                                                      (False, True)):
        if (op != "TRANSPOSE_CONV" or (dilation == 1 and k[0] == k[1])) and (bias or op not in BIASED):
            found.append(convolution(op, v, k, stride, dilation, weights, bias))
    for op, geometry in itertools.product(CONVOLUTIONS[:2], GEOMETRIES):
        found.append(convolution(op, v, *geometry, "int8", True))
    return found


def convolution(op: str, v: int, k: tuple[int, int], stride: tuple[int, int], dilation: int, weights: str,
                bias: bool) -> Form:
    """One convolution (CONVOLUTIONS) of a [1, H, W, C] runtime input with a kernel of `k` (height,
    width) at `stride` (along H, W) and `dilation` (SAME, VALID for 1x1; TRANSPOSE_CONV SAME), C channels in (the other
    set's: TRANSPOSE_CONV and CONV_2D change the channel count) and out; weights from where
    `weights` says (a key of CONV_WEIGHTS, or "int8": a full-int8 op, int8 input and output, int8
    weights per channel, an int32 bias, which the CPU kernel requires), per output channel where
    int8; a bias (float16 behind a DEQUANTIZE with float16 weights) or none."""
    depthwise, (_, h, w, _) = op == "DEPTHWISE_CONV_2D", _shape(4, v)
    cout = SIZES[v][0]
    cin = cout if depthwise else SIZES[1 - v][0]
    (kh, kw), (sh, sw) = k, stride
    kernel, axis = ((1, kh, kw, cout), 3) if depthwise else ((cout, kh, kw, cin), 0)
    wv = _value(kernel, "normal", 11) / math.sqrt(kh * kw * (1 if depthwise else cin))  # outputs of N(0, 1)
    bv = _value((cout,), "normal", 12)
    dilated = f"_d{dilation}" if dilation > 1 else ""
    steps = f"{sh}" if sh == sw else f"{sh}{sw}"
    name = f"{op.lower()}_{kh}x{kw}_s{steps}{dilated}_{weights}{'_b' if bias else ''}_{v}"
    padding = "VALID" if (kh, kw) == (1, 1) and op != "TRANSPOSE_CONV" else "SAME"
    fields = {"padding": getattr(fb.Padding, padding), "strideW": sw, "strideH": sh}
    if op == "TRANSPOSE_CONV":
        out = (1, h * sh, w * sw, cout)
        operands = [_ints(*out), operand(wv, weights, axis), Runtime((1, h, w, cin)), *_bias(bv, weights, bias)]
        return form(name, op, operands, out, options=options_of("TransposeConv", **fields),
                    version=3 if bias else 2 if weights == "i8" else 1)
    out = (1, _spatial(h, kh, sh, padding, dilation), _spatial(w, kw, sw, padding, dilation), cout)
    fields.update(dilationWFactor=dilation, dilationHFactor=dilation)
    options = options_of("DepthwiseConv2D", depthMultiplier=1, **fields) if depthwise else \
        options_of("Conv2D", **fields)
    if weights == "int8":
        q, scale, _ = int8_of(wv, axis)
        operands = [Runtime((1, h, w, cin), "int8", INT8_IN), Quantized(q, (scale, 0), axis),
                    Quantized(np.round(bv / (scale * INT8_IN[0])).astype(np.int32), (scale * INT8_IN[0], 0))]
        return form(name, op, operands, out, dtypes.INT8, options, 3, INT8_OUT)
    version = (6 if depthwise else 5) if weights == "i8" else 2 if depthwise and dilation > 1 else 1
    return form(name, op, [Runtime((1, h, w, cin)), operand(wv, weights, axis), *_bias(bv, weights, bias)], out,
                options=options, version=version)


def _bias(value: np.ndarray, weights: str, bias: bool) -> list:
    """A float convolution's bias operands: none (TRANSPOSE_CONV's 3 inputs; an absent input -1
    the CPU kernels refuse), or `value` stored as the weights are when they are float16 (fp16
    weights convert every float constant), else float32."""
    return [Stored(value, "f16dq" if weights == "f16dq" else "f32")] if bias else []


PROVENANCE = (_const_binary, _lifted, _const_selects, _const_pieces, _const_operands, _convolutions)


# int8-ops: the ops of a full-int8 model, as TF's converter writes them with TFLITE_BUILTINS_INT8


def _fitting(lo: float, hi: float) -> tuple[float, int]:
    """The int8 (scale, zero point) a converter gives a tensor calibrated from `lo` to `hi` (the
    range widened to hold 0)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = (hi - lo) / 255
    return scale, int(np.clip(round(-128 - lo / scale), -128, 127))


def _int8_constant(v: np.ndarray) -> Quantized:
    """`v` as the converter stores a constant a full-int8 op reads (not a weight): int8 of one
    scale and zero point fitting its values."""
    scale, zero = _fitting(v.min(), v.max())
    return Quantized(np.clip(np.round(v / scale) + zero, -128, 127).astype(np.int8), (scale, zero))


def _int8_form(name: str, op: str, operands: list, out: tuple, options=None, version: int = 2,
               quantization: tuple = INT8_IN) -> Form:
    """A full-int8 form: an int8 output of `quantization` (by default its input's: the ops the
    converter gives one scale in and out), at the converter's int8 version of most ops."""
    return form(name, op, operands, out, dtypes.INT8, options, version, quantization)


INT8_BINARY = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply}


def _int8_binaries(v: int) -> list[Form]:
    """ADD, SUB and MUL of two int8 runtime tensors of one shape, and of one with an int8 constant
    of its last axis ("rc") and a scalar one ("rs": TF's converter writes `x * 0.5` so), ranks 1-4;
    the output's scale fits every value the operands can make."""
    found = []
    for (op, fn), r in itertools.product(INT8_BINARY.items(), range(1, 5)):
        x = _shape(r, v)
        last, scalar = _value(x[-1:], "normal", 3), _value((), "normal", 4)
        for tag, other, ends in (("rr", _int8(x), INT8_RANGE), ("rc", _int8_constant(last), (last.min(), last.max())),
                                 ("rs", _int8_constant(scalar), (scalar, scalar))):
            made = [fn(a, b) for a in INT8_RANGE for b in ends]
            found.append(_int8_form(f"{op.lower()}_int8_{tag}_{r}_{v}", op, [_int8(x), other], x,
                                    options_of(OPTIONS[op]), quantization=_fitting(min(made), max(made))))
    return found


def _int8_reductions(v: int) -> list[Form]:
    """MEAN and SUM over the last axis, ranks 2-4, and over H, W at rank 4 (keeping them and
    not); the output's scale fits the values: a mean of uniform values in half the input's range,
    a sum of n in 2 sqrt(n) times it."""
    found = []
    for r in range(2, 5):
        x = _shape(r, v)
        reductions = [((r - 1,), False), *([((1, 2), False), ((1, 2), True)] if r == 4 else [])]
        for op, (axes, keep) in itertools.product(("MEAN", "SUM"), reductions):
            widen = 0.5 if op == "MEAN" else 2 * math.sqrt(math.prod(x[a] for a in axes))
            tag = "".join(map(str, axes)) + ("k" if keep else "")
            found.append(_int8_form(f"{op.lower()}_int8_{r}_{tag}_{v}", op, [_int8(x), _ints(*axes)],
                                    grid._reduced(x, axes, keep), options_of("Reducer", keepDims=keep),
                                    quantization=_fitting(*(e * widen for e in INT8_RANGE))))
    return found


INT8_PERMUTATIONS = ((1, 0), (1, 0, 2), (0, 2, 1), (2, 1, 0), (0, 2, 1, 3), (0, 3, 1, 2), (0, 2, 3, 1))
INT8_PADS = {3: ((1,), (2,)), 4: ((1,), (3,), (1, 2))}  # rank -> the sets of axes padded


def _int8_layout(v: int) -> list[Form]:
    """The ops that move int8 values without changing their scale: TRANSPOSE per
    INT8_PERMUTATIONS, CONCATENATION of two runtime tensors along each axis (the converter gives
    both the output's scale), SLICE and STRIDED_SLICE (steps 1 and 2) of one axis above 1, ranks
    1-4; PAD (with the zero point) per INT8_PADS (the accelerator refuses PAD below rank 3);
    GATHER of int32 ids from an int8 constant table of rank 1-4 along its first axis above 1."""
    found = [_int8_form(f"transpose_int8_{''.join(map(str, p))}_{v}", "TRANSPOSE", [_int8(_shape(len(p), v)),
                        _ints(*p)], tuple(_shape(len(p), v)[i] for i in p)) for p in INT8_PERMUTATIONS]
    for r in range(1, 5):
        x = _shape(r, v)
        found += [_int8_form(f"concat_int8_{r}_ax{a}_{v}", "CONCATENATION", [_int8(x), _int8(x)],
                             _with(x, a, 2 * x[a]), options_of("Concatenation", axis=a)) for a in range(r)]
        axes = [a for a in range(r) if x[a] > 1]
        for a in axes:
            begin, size = _ints(*(1 if i == a else 0 for i in range(r))), _with(x, a, x[a] - 1)
            found.append(_int8_form(f"slice_int8_{r}_ax{a}_{v}", "SLICE", [_int8(x), begin, _ints(*size)], size))
            found += [_int8_form(f"sslice_int8_{r}_ax{a}_s{step}_{v}", "STRIDED_SLICE",
                                 [_int8(x), begin, _ints(*x), _ints(*(step if i == a else 1 for i in range(r)))],
                                 _with(x, a, len(range(1, x[a], step))), options_of("StridedSlice"))
                      for step in (1, 2)]
        for padded in INT8_PADS.get(r, ()):
            pads = np.asarray([[1, 1] if i in padded else [0, 0] for i in range(r)], np.int32)
            found.append(_int8_form(f"pad_int8_{r}_ax{''.join(map(str, padded))}_{v}", "PAD", [_int8(x), pads],
                                    tuple(d + 2 if i in padded else d for i, d in enumerate(x))))
        table = _int8_constant(_value(x, "normal", 7))
        found.append(_gather(f"gather_int8_{r}_ax{axes[0]}_{v}", table, axes[0], dtype=dtypes.INT8, version=2,
                             quantization=table.quantization))
    return found


# one-operand ops of a full-int8 model: version, output quantization (the converter's fixed one
# for SOFTMAX, LOGISTIC and TANH, else fitting what an INT8_IN input makes), options record and fields
INT8_ACTIVATIONS = {
    "SOFTMAX": (2, (1 / 256, -128), "Softmax", {"beta": 1.0}), "LOGISTIC": (2, (1 / 256, -128), None, {}),
    "TANH": (2, (1 / 128, 0), None, {}), "HARD_SWISH": (1, _fitting(-0.375, INT8_RANGE[1]), None, {}),
    "RELU": (2, _fitting(0, INT8_RANGE[1]), None, {}), "RELU6": (2, _fitting(0, 6), None, {}),
    "LEAKY_RELU": (1, _fitting(0.2 * INT8_RANGE[0], INT8_RANGE[1]), "LeakyRelu", {"alpha": 0.2}),
}


def _int8_activations(v: int) -> list[Form]:
    """Each of INT8_ACTIVATIONS and PRELU (an int8 alpha of one scale, of the last axis, and
    [1, 1, C] at rank 4: Keras' shared axes 1, 2) of an int8 runtime tensor, ranks 1-4."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        for op, (version, out, cls, fields) in INT8_ACTIVATIONS.items():
            found.append(_int8_form(f"{op.lower()}_int8_{r}_{v}", op, [_int8(x)], x, options_of(cls, **fields), version,
                                    out))
        for tag, shape in [("c", x[-1:]), *([("11c", (1, 1, x[-1]))] if r == 4 else [])]:
            q, scale, alpha = int8_of(_value(shape, "normal", 10) / 4, None)
            made = [a * (1 if a >= 0 else b) for a in (*INT8_RANGE, 0.0) for b in (alpha.min(), alpha.max())]
            found.append(_int8_form(f"prelu_int8_{r}_alpha_{tag}_{v}", "PRELU", [_int8(x), Quantized(q, (scale, 0))],
                                    x, version=1, quantization=_fitting(min(made), max(made))))
    return found


REQUANTIZED = (0.06, -8)  # another scale holding INT8_IN's values: a requantizing QUANTIZE's output


def _int8_quantizing(v: int) -> list[Form]:
    """A full-int8 model's QUANTIZE of its float32 input and DEQUANTIZE of its output, and the
    QUANTIZE the converter writes between two int8 scales, ranks 1-4."""
    found = []
    for r in range(1, 5):
        x = _shape(r, v)
        found += [_int8_form(f"quantize_f32_to_int8_{r}_{v}", "QUANTIZE", [Runtime(x)], x, version=1),
                  form(f"dequantize_int8_to_f32_{r}_{v}", "DEQUANTIZE", [_int8(x)], x, version=2),
                  _int8_form(f"quantize_int8_to_int8_{r}_{v}", "QUANTIZE", [_int8(x)], x, version=1,
                             quantization=REQUANTIZED)]
    return found


INT8_OPS = (_int8_binaries, _int8_reductions, _int8_layout, partial(_reshapes, int8=True), partial(_images, int8=True),
            _int8_activations, _int8_quantizing)
