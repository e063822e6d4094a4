"""The numerics grid: op forms (rules/support/forms.py) run on the installed LiteRT's GPU
accelerator at fp32 and at its default precision (fp16) against the CPU interpreter on the same
seeded inputs, written op by op without TensorFlow. `gpucompat calibrate --grid` runs it into a
profile file's table; tools/record_grid.py runs it into the shipped table
rules/support/calibration/litert_gpu.json; tests/test_fidelity_numerics.py re-runs its sample.

The form keys are finite, and the grid enumerates them, at two sets of sizes (SIZES: the last
axis a multiple of 4 and not): every binary elementwise op with every pair of operand shapes in
`n`/`1` up to rank 4 (a constant second operand, a constant first for SUB and DIV, two runtime
operands), every one-operand op at ranks 1-4, SOFTMAX, TRANSPOSE per permutation, SLICE /
STRIDED_SLICE per set of axes and of none, PAD / PADV2 / MIRROR_PAD per set of axes,
CONCATENATION per axis and kind of operand, RESHAPE per pair of ranks, every reduction per set of
axes, STRIDED_SLICE at steps 1 and 3 and dropping an axis, FULLY_CONNECTED of every input shape
up to rank 4 with every weight kind (int8 ones judged against the floats they stand for) and
full-int8; plus the hand-picked forms of earlier issues, and (grid_ops.py) a few forms of every
other op type the profile delegates and the forms whose operand differs only in where it comes
from (a float32 constant, float16 or int8 behind a DEQUANTIZE, int8 read by a hybrid kernel, a
runtime tensor). Each form is the op a converter writes for it (float16 weights behind their
DEQUANTIZE; a DIV by a constant as litert-torch and onnx2tf write it, where TF's converter writes
a MUL), so its form key is the key of the converter's op; a form key is wrong when any of its
forms is. "full" runs them all (10 to 25 minutes on the software driver), "sample" every
hand-picked form and one in SAMPLE_EVERY of the rest.

Many independent forms go into one model with one output each (one shader compilation per model
and precision); each form has inputs of its own. A batch must run fully delegated: forms the
litert-mldrift profile says the accelerator does not take are left out before the run, and a
batch the accelerator refuses is split until the form it refuses is alone, left out with why. A
shader that fails to compile spoils its whole batch at that precision (the runtime never submits
the partition's work: every output comes back unwritten), so a batch whose log shows a device
error is split until the form causing it is alone, judged wrong with the runtime's words.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir.build import Sketch
from gpucompat.rules.support import forms as keys
from gpucompat.verification.tolerance import magnitude, max_abs_error

# A form's outputs are right when within this of the CPU's (cosine, max error / largest output);
# rules/support/calibration THRESHOLDS says it in words.
NOISE = {"fp32": (0.9999, 1e-3), "fp16": (0.999, 1e-2)}
HALF_MAX = float(np.finfo(np.float16).max)  # 65504
# ops whose output jumps by a whole step at a boundary of their input (near_threshold: at fp16 the draw decides)
STEPPED = ("FLOOR_MOD", "FLOOR_DIV", "FLOOR", "CEIL", "ROUND")
# ops that move or select their inputs' values without computing new ones (judge: half storage)
MOVING = ("SELECT", "SELECT_V2", "CONCATENATION", "PACK", "PAD", "PADV2", "MIRROR_PAD", "GATHER", "RESHAPE",
          "TRANSPOSE", "SLICE", "STRIDED_SLICE", "TILE", "BROADCAST_TO", "SPLIT", "SPLIT_V", "UNPACK")
BATCH = 300  # forms per model: one shader compilation per model and precision
SAMPLE_EVERY = 40
SIZES = ((8, 3, 5, 2), (7, 4, 6, 3))  # output axes from the last: the last a multiple of 4, and not
AWAY = ("DIV", "LOG", "SQRT", "RSQRT")  # inputs drawn away from 0
OPTIONS = {"ADD": "Add", "SUB": "Sub", "MUL": "Mul", "DIV": "Div"}  # the binary ops with options


@dataclass
class Form:
    """One form: its name, how it adds its op to a model (inputs named `<name>__<j>`), and how its
    inputs are drawn ("normal" N(0, 1), "away" |N| + 0.5, "big" U(5, 7): fp16 sums pass 65504,
    "halves" N(0, 1) to a multiple of 0.5: comparisons meet equal values, "int8" any int8,
    "ids<N>" int32 ids below N, "at<K>" int32 all K (start indices), "int" int32 from 1 to 8 (an
    LLM's positions and lengths: never 0, a divisor), "bool" true or false; one draw
    for every input, or one per input in order, comma-separated: "bool,normal,normal")."""

    name: str
    write: Callable[[Sketch, str, bool], object]  # (sketch, prefix, exact): exact writes int8 weights as floats
    draw: str = "normal"
    quantized: bool = False  # int8 weights: the CPU reference runs the float values they stand for
    key: str | None = None
    example: str = ""  # the form and its inputs' shapes, the evidence a table names
    result: dict = field(default_factory=dict)  # precision -> {"cosine", "max_error", "wrong"[, "error"]}
    refused: str | None = None
    build: str | None = None  # the delegate's words when the form alone fails to build (GL delegate)
    screened: bool = False  # delegated alone once (GL delegate: _screen_builds)


def options_of(cls: str | None, **fields):
    """The builtin options `<cls>OptionsT` with `fields` set; None for an op without options
    (`cls`: "Add" for ADD's AddOptionsT)."""
    if cls is None:
        return None
    options = getattr(fb, f"{cls}OptionsT")()
    for k, v in fields.items():
        setattr(options, k, v)
    return options


def _const(shape, seed: int, away: bool = False) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return np.abs(v) + 4.0 if away else v


def _patterns(rank: int) -> list[str]:
    return ["".join(p) for p in itertools.product("n1", repeat=rank)]


def shape_of(pattern: str, sizes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of `pattern` ("n1n": an axis above 1 or of 1), its axes aligned from the right
    with the output sizes `sizes`."""
    r = len(pattern)
    return tuple(sizes[r - 1 - i] if c == "n" else 1 for i, c in enumerate(pattern))


def one_op(name: str, op: str, inputs: list[tuple], consts: list[np.ndarray], out: tuple, options=None,
           draw: str = "normal", const_first: bool = False) -> Form:
    """A form of one op reading runtime `inputs` (shapes) and constants `consts`."""
    def write(s: Sketch, prefix: str, exact: bool = False):
        runtime = [s.input(f"{prefix}__{j}", shape, _dtype(input_draw(draw, j))) for j, shape in enumerate(inputs)]
        fixed = [s.const(f"{prefix}_c{j}", v) for j, v in enumerate(consts)]
        return s.op(op, [*fixed, *runtime] if const_first else [*runtime, *fixed], out, options=options)
    return Form(name, write, draw)


def _binary(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    every = [p for r in range(5) for p in _patterns(r)]
    for op in keys.BINARY:
        draw, options = "away" if op == "DIV" else "normal", options_of(OPTIONS.get(op))
        for pa, pb in itertools.product(every, every):
            sa, sb = shape_of(pa, sizes), shape_of(pb, sizes)
            out = np.broadcast_shapes(sa, sb)
            found.append(one_op(f"{op.lower()}_r{pa}_c{pb}_{'w' if op == 'DIV' else ''}{v}", op, [sa],
                              [_const(sb, 3, op == "DIV")], out, options))
            if op in keys.ORDERED:
                found.append(one_op(f"{op.lower()}_c{pa}_r{pb}_{v}", op, [sb], [_const(sa, 4, True)], out, options,
                                    "away", const_first=True))
            if (pa == "") == (pb == ""):  # a runtime scalar with a runtime tensor is not delegated
                found.append(one_op(f"{op.lower()}_r{pa}_r{pb}_{v}", op, [sa, sb], [], out, options, draw))
    return found


def _unary(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    special = {"GELU": options_of("Gelu"), "LEAKY_RELU": options_of("LeakyRelu", alpha=0.1)}
    for op in keys.UNARY:
        options = special.get(op)
        for r in range(1, 5):
            for pattern in sorted({"n" * r, "1" + "n" * (r - 1)}):
                shape = shape_of(pattern, sizes)
                found.append(one_op(f"{op.lower()}_{pattern}_{v}", op, [shape], [], shape, options,
                                    "away" if op in AWAY else "normal"))
    for r in range(1, 5):
        for pattern in _patterns(r):
            shape = shape_of(pattern, sizes)
            found.append(one_op(f"softmax_{pattern}_{v}", "SOFTMAX", [shape], [], shape,
                                options_of("Softmax", beta=1.0)))
    return found


def _subsets(r: int) -> list[tuple[int, ...]]:
    return [s for k in range(1, r + 1) for s in itertools.combinations(range(r), k)]


def _ints(*values) -> np.ndarray:
    return np.asarray(values, np.int32)


def _layout(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    for r in range(1, 5):
        shape = shape_of("n" * r, sizes)
        for perm in itertools.permutations(range(r)):
            if list(perm) != list(range(r)):
                found.append(one_op(f"transpose_{''.join(map(str, perm))}_{v}", "TRANSPOSE", [shape], [_ints(*perm)],
                                    tuple(shape[i] for i in perm)))
        for axes in _subsets(r):
            tag = "".join(map(str, axes))
            begin = [1 if i in axes else 0 for i in range(r)]
            size = [d - 1 if i in axes else d for i, d in enumerate(shape)]
            found.append(one_op(f"slice_{r}_{tag}_{v}", "SLICE", [shape], [_ints(*begin), _ints(*size)], tuple(size)))
            stepped = tuple((d - 1 + 1) // 2 if i in axes else d for i, d in enumerate(shape))
            found.append(one_op(f"sslice_{r}_{tag}_{v}", "STRIDED_SLICE", [shape],
                              [_ints(*begin), _ints(*shape), _ints(*(2 if i in axes else 1 for i in range(r)))],
                                stepped, options_of("StridedSlice")))
            if r >= 3:
                pads = np.asarray([[1, 2] if i in axes else [0, 0] for i in range(r)], np.int32)
                padded = tuple(d + 3 if i in axes else d for i, d in enumerate(shape))
                found.append(one_op(f"pad_{r}_{tag}_{v}", "PAD", [shape], [pads], padded))
                found.append(one_op(f"padv2_{r}_{tag}_{v}", "PADV2", [shape], [pads, np.asarray([1.5], np.float32)],
                                    padded))
        for ax in range(r):
            joined = tuple(d * 2 if i == ax else d for i, d in enumerate(shape))
            concat = options_of("Concatenation", axis=ax)
            found.append(one_op(f"concat_{r}_{ax}_rr_{v}", "CONCATENATION", [shape, shape], [], joined, concat))
            for kinds, first in (("rc", False), ("cr", True)):
                found.append(one_op(f"concat_{r}_{ax}_{kinds}_{v}", "CONCATENATION", [shape], [_const(shape, 5)],
                                    joined, concat, const_first=first))
    by_rank = {1: (24,), 2: (6, 4), 3: (2, 3, 4), 4: (2, 1, 3, 4)} if v == 0 else \
        {1: (30,), 2: (5, 6), 3: (5, 2, 3), 4: (1, 5, 3, 2)}
    for ri, ro in itertools.product(by_rank, by_rank):
        target = by_rank[ro] if ri != ro else by_rank[ro][::-1]
        found.append(_reshape(f"reshaped_{ri}_{ro}_{v + 1}", by_rank[ri], target))
    return found


def _reshape(name: str, shape: tuple, target: tuple) -> Form:
    return one_op(name, "RESHAPE", [shape], [_ints(*target)], target, options_of("Reshape", newShape=list(target)))


def _reductions(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    long_sizes = {1: (1024,), 2: (32, 32), 3: (8, 8, 16), 4: (4, 8, 8, 4)}
    for op in keys.REDUCTIONS:
        for r in range(1, 5):
            shape = shape_of("n" * r, sizes)
            for axes, keep in itertools.product(_subsets(r), (False, True)):
                tag = "".join(map(str, axes)) + ("k" if keep else "")
                options = options_of("Reducer", keepDims=keep)
                found.append(one_op(f"{op.lower()}_{r}_{tag}_{v}", op, [shape], [_ints(*axes)],
                                    _reduced(shape, axes, keep), options))
                if op == "REDUCE_PROD" or v:  # products of 1024 values leave fp32's range
                    continue
                big = iter(long_sizes[len(axes)])
                wide = tuple(next(big) if i in axes else 2 for i in range(r))
                found.append(one_op(f"{op.lower()}_{r}_{tag}_long", op, [wide], [_ints(*axes)],
                                    _reduced(wide, axes, keep), options, "big"))
    return found


def _reduced(shape: tuple, axes: tuple, keep: bool) -> tuple:
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes)


def _strided(v: int) -> list[Form]:
    """STRIDED_SLICE as Python slicing writes it: step 1 (`a[:, 1:]`) and step 3 per set of axes,
    and an index dropping one axis (`a[:, 1]`), at ranks 1-4."""
    sizes, found = SIZES[v], []
    for r in range(1, 5):
        shape = shape_of("n" * r, sizes)
        for axes, step in itertools.product(_subsets(r), (1, 3)):
            begin = [1 if i in axes else 0 for i in range(r)]
            out = tuple(len(range(1, d, step)) if i in axes else d for i, d in enumerate(shape))
            found.append(one_op(f"sslice_{r}_{''.join(map(str, axes))}_s{step}_{v}", "STRIDED_SLICE", [shape],
                              [_ints(*begin), _ints(*shape), _ints(*(step if i in axes else 1 for i in range(r)))],
                                out, options_of("StridedSlice")))
        for ax in range(r if r > 1 else 0):
            begin, end = [1 if i == ax else 0 for i in range(r)], [2 if i == ax else d for i, d in enumerate(shape)]
            found.append(one_op(f"sslice_{r}_drop_{ax}_{v}", "STRIDED_SLICE", [shape],
                              [_ints(*begin), _ints(*end), _ints(*([1] * r))],
                                tuple(d for i, d in enumerate(shape) if i != ax),
                                options_of("StridedSlice", shrinkAxisMask=1 << ax)))
    return found


FC_IN, FC_UNITS = (8, 7), (5, 6)  # input features and units of FULLY_CONNECTED, per set of sizes
FC_WEIGHTS = ("float32", "runtime", "float16", "int8")  # constant float32, runtime, fp16 via DEQUANTIZE, int8


def _fully_connected(v: int) -> list[Form]:
    """FULLY_CONNECTED of every input shape of rank 1-4 (the last axis its features), keeping the
    dims or not, with units n or 1, weights constant float32 / float16 behind a DEQUANTIZE / int8
    per channel (a hybrid kernel) or runtime, with a bias or not."""
    sizes, found = (FC_IN[v], *SIZES[v][1:]), []
    for r in range(1, 5):
        for p, keep, units, weights, bias in itertools.product(_patterns(r), (False, True), (FC_UNITS[v], 1),
                                                                 FC_WEIGHTS, (False, True)):
            tag = f"{p}{'k' if keep else ''}u{units}{weights[0]}{weights[-1]}{'b' if bias else ''}"
            found.append(fully_connected(f"fc_{tag}_{v}", shape_of(p, sizes), units, keep, weights, bias))
    return found


def fully_connected(name: str, x: tuple, units: int, keep: bool, weights: str, bias: bool) -> Form:
    """One FULLY_CONNECTED form of input shape `x`, weights one of FC_WEIGHTS (see _fully_connected)."""
    return Form(name, partial(_fc, x=x, units=units, keep=keep, weights=weights, bias=bias),
                quantized=weights == "int8")


def _fc(s: Sketch, prefix: str, exact: bool = False, *, x: tuple, units: int, keep: bool, weights: str, bias: bool):
    """One FULLY_CONNECTED form (see _fully_connected); `exact` writes int8 weights as the floats
    they stand for."""
    out = (*x[:-1], units) if keep else (int(np.prod(x[:-1])), units)
    inp, w = s.input(f"{prefix}__0", x), _const((units, x[-1]), 11)
    if weights == "runtime":
        wt = s.input(f"{prefix}__1", w.shape)
    elif weights == "float16":
        wt = s.op("DEQUANTIZE", [s.const(f"{prefix}_w16", w.astype(np.float16))], w.shape)
    elif weights == "int8":
        scale = np.abs(w).max(axis=1) / 127
        q = np.clip(np.round(w / scale[:, None]), -127, 127)
        wt = s.const(f"{prefix}_w", (q * scale[:, None]).astype(np.float32)) if exact else \
            s.const(f"{prefix}_w8", q.astype(np.int8), (scale, 0))
    else:
        wt = s.const(f"{prefix}_w", w)
    b = s.const(f"{prefix}_b", _const((units,), 12)) if bias else None
    return s.op("FULLY_CONNECTED", [inp, wt, b], out, options=options_of("FullyConnected", keepNumDims=keep))


def _hand_picked() -> list[Form]:
    """The forms of earlier issues at the sizes they were seen at (issue 18's table: a rank-3 PAD,
    broadcasts and same-shape ADDs, long fp16 sums), EMBEDDING_LOOKUP of a rank-2 table (a rank-3
    one aborts the process: model_builder_helper.cc:329 "Check failed: dims->size == 2"), and
    RESHAPE from and to rank 0."""
    add, mul = options_of("Add"), options_of("Mul")
    found = [
        one_op("tbl_pad3_mid", "PAD", [(16, 32, 1)], [np.asarray([[0, 0], [16, 16], [0, 0]], np.int32)], (16, 64, 1)),
        one_op("tbl_add_85x16_c1x85x16", "ADD", [(85, 16)], [_const((1, 85, 16), 6)], (1, 85, 16), add),
        one_op("tbl_mul_512x1024_c1x1x1024", "MUL", [(512, 1024)], [_const((1, 1, 1024), 7)], (1, 512, 1024), mul),
        one_op("tbl_add_scalar_arange", "ADD", [()], [np.arange(4, dtype=np.float32)], (4,), add),
        *(one_op(f"tbl_add_{tag}_same", "ADD", [shape], [_const(shape, seed)], shape, add)
          for tag, shape, seed in (("4096x256", (4096, 256), 8), ("1x4096x256", (1, 4096, 256), 8),
                                   ("2x2", (2, 2), 9), ("4d_big", (1, 64, 64, 64), 8))),
        *(one_op(f"{name}_long_big", op, [(1, 112, 112, 32)], [_ints(1, 2)], (1, 32), options_of("Reducer"), "big")
          for name, op in (("sum", "SUM"), ("mean", "MEAN"), ("max", "REDUCE_MAX"))),
        one_op("sum_rank2_long", "SUM", [(4, 8192)], [_ints(1)], (4,), options_of("Reducer")),
        *(one_op(f"lookup_{rows}x{cols}", "EMBEDDING_LOOKUP", [(5,)], [_const((rows, cols), 10)], (5, cols),
                 draw=f"ids{rows}") for rows, cols in ((32, 16), (1000, 64))),
    ]
    ones = {r: (1,) * r for r in range(5)}
    return found + [_reshape(f"reshaped_{ri}_{ro}_0", ones[ri], ones[ro])
                    for ri, ro in itertools.product(ones, ones) if ri != ro]


def _unsliced(v: int) -> list[Form]:
    """SLICE and STRIDED_SLICE that change no axis (the whole tensor, step 1), at ranks 1-4: the
    form `fix --input-shape` leaves once a length is frozen (a raw-audio model's framing)."""
    found = []
    for r in range(1, 5):
        shape = shape_of("n" * r, SIZES[v])
        zeros = _ints(*[0] * r)
        found.append(one_op(f"slice_{r}_none_{v}", "SLICE", [shape], [zeros, _ints(*shape)], shape))
        found.append(one_op(f"sslice_{r}_none_{v}", "STRIDED_SLICE", [shape], [zeros, _ints(*shape), _ints(*[1] * r)],
                            shape, options_of("StridedSlice")))
    return found


def _mirror_pads(v: int) -> list[Form]:
    """MIRROR_PAD, REFLECT and SYMMETRIC, per set of padded axes at ranks 1-4 (one row or column
    each side: REFLECT pads less than the axis)."""
    found = []
    for r, (mode, tag) in itertools.product(range(1, 5), ((0, "reflect"), (1, "symmetric"))):
        shape = shape_of("n" * r, SIZES[v])
        for axes in _subsets(r):
            pads = np.asarray([[1, 1] if i in axes else [0, 0] for i in range(r)], np.int32)
            padded = tuple(d + 2 if i in axes else d for i, d in enumerate(shape))
            found.append(one_op(f"mirror_pad_{tag}_{r}_{''.join(map(str, axes))}_{v}", "MIRROR_PAD", [shape], [pads],
                                padded, options_of("MirrorPad", mode=mode)))
    return found


def _batch_one_pads(v: int) -> list[Form]:
    """PAD, PADV2 and MIRROR_PAD (REFLECT, SYMMETRIC) of a tensor of batch 1, as real models hold
    them, at ranks 2-4 per set of padded axes (the enumerated families pad a batch above 1, which
    the accelerator pads wrongly at rank 3 where it pads batch 1 right); REFLECT pads no axis of 1."""
    found = []
    for r in range(2, 5):
        shape = shape_of("1" + "n" * (r - 1), SIZES[v])
        for axes in _subsets(r):
            tag = "".join(map(str, axes))
            pads = np.asarray([[1, 2] if i in axes else [0, 0] for i in range(r)], np.int32)
            padded = tuple(d + 3 if i in axes else d for i, d in enumerate(shape))
            found.append(one_op(f"pad_b1_{r}_{tag}_{v}", "PAD", [shape], [pads], padded))
            found.append(one_op(f"padv2_b1_{r}_{tag}_{v}", "PADV2", [shape], [pads, np.asarray([1.5], np.float32)],
                                padded))
            mirrored = np.asarray([[1, 1] if i in axes else [0, 0] for i in range(r)], np.int32)
            around = tuple(d + 2 if i in axes else d for i, d in enumerate(shape))
            for mode, name in ((0, "reflect"), (1, "symmetric")):
                if mode == 0 and 0 in axes:
                    continue
                found.append(one_op(f"mirror_pad_{name}_b1_{r}_{tag}_{v}", "MIRROR_PAD", [shape], [mirrored], around,
                                    options_of("MirrorPad", mode=mode)))
    return found


INT8_IN, INT8_OUT = (0.05, 3), (0.25, -2)  # (scale, zero point) of a full-int8 FULLY_CONNECTED's input, output


def _int8_fully_connected(v: int) -> list[Form]:
    """FULLY_CONNECTED as a full-int8 model holds it: int8 input and output, int8 weights per
    channel, an int32 bias or none; every input shape of rank 1-4, keeping the dims or not, units n
    or 1. Judged against the CPU's int8 kernel, both dequantized."""
    sizes, found = (FC_IN[v], *SIZES[v][1:]), []
    for r in range(1, 5):
        for p, keep, units, bias in itertools.product(_patterns(r), (False, True), (FC_UNITS[v], 1), (False, True)):
            tag = f"{p}{'k' if keep else ''}u{units}{'b' if bias else ''}"
            found.append(Form(f"fc_int8_{tag}_{v}", partial(_int8_fc, x=shape_of(p, sizes), units=units, keep=keep,
                                                            bias=bias), "int8"))
    return found


def _int8_fc(s: Sketch, prefix: str, exact: bool = False, *, x: tuple, units: int, keep: bool, bias: bool):
    """One full-int8 FULLY_CONNECTED (see _int8_fully_connected)."""
    from gpucompat.ir import dtypes

    out = (*x[:-1], units) if keep else (int(np.prod(x[:-1])), units)
    w = _const((units, x[-1]), 11)
    scale = np.abs(w).max(axis=1) / 127
    wt = s.const(f"{prefix}_w8", np.clip(np.round(w / scale[:, None]), -127, 127).astype(np.int8), (scale, 0))
    b = s.const(f"{prefix}_b32", np.round(_const((units,), 12) / (scale * INT8_IN[0])).astype(np.int32),
                (scale * INT8_IN[0], 0)) if bias else None
    return s.op("FULLY_CONNECTED", [s.input(f"{prefix}__0", x, dtypes.INT8, INT8_IN), wt, b], out, dtypes.INT8,
                options_of("FullyConnected", keepNumDims=keep), quantization=INT8_OUT)


def groups() -> dict[str, list[Form]]:
    """Every form of the grid in groups, in the order they run: the enumerated families at each
    set of sizes, the hand-picked forms, then the families measured since (each its own group, so
    `tools/record_grid.py GROUP` adds them to the shipped table alone; "op-types", "provenance"
    and "int8-ops" in grid_ops.py; "cut" and "cut-gl", the forms cut from real models for each
    table, in grid_cut.py)."""
    from gpucompat.calibrate import grid_cut, grid_ops
    from gpucompat.rules.support import calibration

    return {
        "first-sizes": _enumerated(0),
        "second-sizes": _enumerated(1),
        "hand-picked": _hand_picked(),
        "unsliced": [*_unsliced(0), *_unsliced(1)],
        "mirror-pad": [*_mirror_pads(0), *_mirror_pads(1)],
        "batch-one-pads": [*_batch_one_pads(0), *_batch_one_pads(1)],
        "int8-fc": [*_int8_fully_connected(0), *_int8_fully_connected(1)],
        **grid_ops.groups(),
        "cut": grid_cut.stored(),
        "cut-gl": grid_cut.stored(calibration.GL),
    }


def _enumerated(v: int) -> list[Form]:
    return [*_binary(v), *_unary(v), *_layout(v), *_reductions(v), *_strided(v), *_fully_connected(v)]


def forms() -> list[Form]:
    """Every form of the grid, every group in order."""
    return [f for group in groups().values() for f in group]


def chosen(grid: str) -> list[Form]:
    """The forms `--grid` names: "full", "sample" (every hand-picked form and one in SAMPLE_EVERY
    of the rest) or "none"."""
    if grid == "none":
        return []
    every = forms()
    if grid == "full":
        return every
    hand = {f.name for f in _hand_picked()}
    return [f for i, f in enumerate(every) if f.name in hand or i % SAMPLE_EVERY == 0]


def run(grid: list[Form], launch, log: Callable[[str], None] | None = None) -> list[Form]:
    """Run every form of `grid` in batches of BATCH on the accelerator `launch` starts."""
    with tempfile.TemporaryDirectory(prefix="gpucompat-grid-") as tmp:
        for i in range(0, len(grid), BATCH):
            _batch(grid[i:i + BATCH], os.path.join(tmp, "batch.tflite"), launch, log)
            if log:
                log(f"{min(i + BATCH, len(grid))} of {len(grid)} forms")
    return grid


def _batch(batch: list[Form], path: str, launch, log, precisions: tuple[str, ...] = tuple(NOISE)) -> None:
    """One model of every form in `batch`, run at `precisions`; a batch the accelerator refuses is
    split until the refused form is alone, which is left out with why. A run whose log holds a
    device error (a shader that does not compile: the partition's work is never submitted, so no
    form's output is written) is split at that precision until the form causing it is alone, which
    is judged wrong with the runtime's words as its "error"."""
    from gpucompat import ir
    from gpucompat.confirm.gl_runner import GlBuildFailure, GlLauncher, NoGl
    from gpucompat.confirm.runner import NoDevice
    from gpucompat.errors import GpucompatError
    from gpucompat.rules.support.forms import form_of, form_with_batch

    kept = [f for f in batch if f.refused is None]
    if not kept:
        return
    batch = kept
    with open(path, "wb") as fh:
        fh.write(_model(batch))
    graph = ir.load(path).graphs[0]
    for i, (f, out) in enumerate(zip(batch, graph.outputs)):
        f.key = (form_with_batch if isinstance(launch, GlLauncher) else form_of)(out.producer)
        shapes = [str(list(t.shape)) for t in graph.inputs if t.name.rsplit("__", 1)[0] == f"f{i}"]
        f.example = f"{f.name}: inputs {' and '.join(shapes)}"
    declined = _not_delegated(graph, batch, launch)
    if declined:
        for f in declined:
            f.refused = "the profile predicts the delegate does not take it"
        _batch(batch, path, launch, log, precisions)
        return
    if isinstance(launch, GlLauncher) and len(batch) > 1 and not all(f.screened for f in batch):
        _screen_builds(batch, os.path.dirname(path), launch, log)
        _batch(batch, path, launch, log, precisions)
        return
    halves = (batch[:len(batch) // 2], batch[len(batch) // 2:])
    try:
        got, want, errors = _outputs(path, batch, graph, launch, precisions)
    except (NoDevice, NoGl):
        raise
    except GpucompatError as e:
        if len(batch) == 1:
            batch[0].refused, batch[0].result = str(e).replace(path, batch[0].name), {}
            if isinstance(e, GlBuildFailure):
                batch[0].build = batch[0].refused
            if log:
                log(f"left out {batch[0].name}: {batch[0].refused}")
            return
        for half in halves:
            _batch(half, path, launch, log, precisions)
        return
    poisoned = tuple(p for p in precisions if errors[p])
    for precision in precisions:
        if precision in poisoned and len(batch) > 1:
            continue
        for f, g, w, out in zip(batch, got[precision], want, graph.outputs):
            f.result[precision] = judge(_real(g, out), _real(w, out), precision, _step(out),
                                        out.producer.name in MOVING)
            if errors[precision]:
                f.result[precision].update(wrong=True, error=errors[precision][0])
                if log:
                    log(f"{f.name} at {precision}: {errors[precision][0]}")
    if poisoned and len(batch) > 1:
        for half in halves:
            _batch(half, path, launch, log, poisoned)


def _screen_builds(batch: list[Form], tmp: str, launch, log) -> None:
    """Delegate each form of `batch` alone, without running it, and leave out with the delegate's
    words each whose build fails (the GL delegate fails a whole model on one such form: finding
    them by splitting the batch would take a child run per halving)."""
    paths = []
    for j, f in enumerate(batch):
        paths.append(os.path.join(tmp, f"screen{j}.tflite"))
        with open(paths[-1], "wb") as fh:
            fh.write(_model([f]))
    for f, (failure, taken, other) in zip(batch, _alone(paths, launch)):
        f.screened = True
        if failure is not None:
            f.refused = f.build = failure
        elif other is not None:
            f.refused = failure = f"not measured: {other}"
        elif not taken:
            f.refused = failure = "the GL delegate took 0 of its nodes"  # tools/record_grid.py UNTAKEN
        if failure and log:
            log(f"left out {f.name}: {failure}")


def _alone(paths: list[str], launch) -> list[tuple[str | None, bool, str | None]]:
    """For each model of `paths`: the GL delegate's words when it fails to build it at either
    precision (else None), whether it took all its nodes, and the interpreter's words when it
    fails otherwise (its own CPU kernels: an LSTM cut without its state; the form is not measured)."""
    from gpucompat import ir
    from gpucompat.confirm.gl_runner import GlJob, delegate_models

    reports = delegate_models([GlJob(p, precision) for p in paths for precision in NOISE], launch)
    found = []
    for i, path in enumerate(paths):
        pair = reports[i * len(NOISE):(i + 1) * len(NOISE)]
        failed = next((r for r in pair if r.prepare_failed or r.crashed or r.timed_out), None)
        nodes = len(ir.load(path).graphs[0].ops)
        other = next((r.reason or "the interpreter failed" for r in pair if r.failed), None)
        found.append((None if failed is None else (failed.reason or "the GL delegate failed"),
                      all(r.gpu_nodes == nodes for r in pair), None if failed else other))
    return found


def _model(batch: list[Form], exact: bool = False) -> bytes:
    """One model of every form of `batch`, each output in the batch's order (`exact`: int8
    weights written as the floats they stand for)."""
    s = Sketch()
    s.output(*(f.write(s, f"f{i}", exact) for i, f in enumerate(batch)))
    return s.to_bytes()


def _not_delegated(graph, batch: list[Form], launch) -> list[Form]:
    """The forms with an op the delegate's profile says it does not take at partitioning (left out
    before the run: a batch must be fully delegated): the base profile for LiteRT's accelerator,
    gl-delegate for the GL delegate, whose forms the model builder may fail to build are run, to be
    measured (an op without a GL shader is left out: the kernel table says so)."""
    from gpucompat.confirm.gl_runner import GlLauncher
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.judging import judge_graph
    from gpucompat.rules.support.profile import Options
    from gpucompat.rules.support.profile_file import BASE

    if isinstance(launch, GlLauncher):
        verdicts = judge_graph(graph, registry.get("gl-delegate"), Options(backend="gl")).verdicts
        refused = {id(op) for op, v in zip(graph.ops, verdicts) if not v.ok and v.layer != "parse"}
    else:
        verdicts = judge_graph(graph, registry.get(BASE), Options(backend="webgpu")).verdicts
        refused = {id(op) for op, v in zip(graph.ops, verdicts) if not v.ok}
    return [f for f, out in zip(batch, graph.outputs) if refused & _writers(out)]


def _writers(t) -> set[int]:
    """The ops (their ids) that write `t` and what it is computed from."""
    op = t.producer
    return set() if op is None else {id(op)}.union(*(_writers(i) for i in op.present_inputs))


def _outputs(path: str, batch: list[Form], graph, launch, precisions: tuple[str, ...]) -> tuple[dict, list, dict]:
    """The accelerator's outputs at each of `precisions` and the CPU interpreter's (int8 weights as
    the floats they stand for, a custom op as its builtin twin), on seeded inputs; and the device
    errors each run logged."""
    from gpucompat import ir
    from gpucompat.confirm.gl_runner import GlLauncher, run_whole
    from gpucompat.runners.litert_gpu.infer import run_on_accelerator
    from gpucompat.verification.interpreter import reference_interpreter, run_reference
    from gpucompat.verification.reference_model import with_builtin_twins

    feeds = seeded_feeds(graph, batch)
    if any(f.quantized for f in batch):
        reference = _model(batch, exact=True)
    else:
        with open(path, "rb") as fh:
            reference = fh.read()
    model = ir.from_bytes(reference)
    if with_builtin_twins(model):  # a custom op the CPU has no kernel for (Convolution2DTransposeBias)
        reference = ir.to_bytes(model)
    want = run_reference(reference_interpreter(reference, path), feeds)
    inputs, outputs = [t.index for t in graph.inputs], [t.index for t in graph.outputs]
    if isinstance(launch, GlLauncher):
        got = {p: run_whole(path, [feeds], inputs, outputs, len(graph.ops), p, launch)[0] for p in precisions}
        return got, want, {p: [] for p in precisions}
    runs = {p: run_on_accelerator(path, [feeds], inputs, outputs, precision=p, launch=launch) for p in precisions}
    return {p: r.outputs[0] for p, r in runs.items()}, want, {p: r.device_errors for p, r in runs.items()}


def seeded_feeds(graph, batch: list[Form]) -> list[np.ndarray]:
    """The grid's inputs of the model of `batch` (`graph`: its subgraph), in input order, each
    drawn as its form says."""
    gen = np.random.default_rng(0)
    draws = {f"f{i}": f.draw for i, f in enumerate(batch)}
    feeds = []
    for t in graph.inputs:
        form, j = t.name.rsplit("__", 1)
        feeds.append(_draw(input_draw(draws[form], int(j)), t.shape, gen))
    return feeds


def input_draw(draw: str, j: int) -> str:
    """How a form's input `j` is drawn: `draw` names one draw for every input, or one per input
    (comma-separated)."""
    each = draw.split(",")
    return each[j] if len(each) > 1 else each[0]


def _draw(draw: str, shape, gen: np.random.Generator) -> np.ndarray:
    if draw == "big":
        return gen.uniform(5.0, 7.0, shape).astype(np.float32)
    if draw == "int8":
        return gen.integers(-128, 128, shape).astype(np.int8)
    if draw == "bool":
        return gen.integers(0, 2, shape).astype(np.bool_)
    if draw.startswith("ids"):
        return gen.integers(0, int(draw[3:]), shape).astype(np.int32)
    if draw.startswith("at"):
        return np.full(shape, int(draw[2:]), np.int32)
    if draw == "int":
        return gen.integers(1, 9, shape).astype(np.int32)
    v = gen.standard_normal(shape).astype(np.float32)
    if draw == "halves":
        return (np.round(v * 2) / 2).astype(np.float32)
    return (np.abs(v) + 0.5).astype(np.float32) if draw == "away" else v


def _dtype(draw: str) -> int:
    """The tensor type of an input drawn as `draw` says."""
    from gpucompat.ir import dtypes

    named = {"int8": dtypes.INT8, "bool": dtypes.BOOL}
    return named.get(draw, dtypes.INT32 if draw.startswith(("ids", "at", "int")) else dtypes.FLOAT32)


def _step(out) -> float:
    """The quantization step of a quantized output (0 for a float one)."""
    q = out.quantization
    return 0.0 if q is None else float(q.scale[0])


def _real(values: np.ndarray, out) -> np.ndarray:
    """An output's values as the real numbers they stand for (a quantized output dequantized)."""
    q = out.quantization
    if q is None:
        return values
    zero = int(q.zeroPoint[0]) if q.zeroPoint is not None and len(q.zeroPoint) else 0
    return (np.asarray(values, np.float64) - zero) * float(q.scale[0])


def judge(got: np.ndarray, want: np.ndarray, precision: str, step: float = 0.0, moves: bool = False) -> dict:
    """Cosine and max error (relative to the largest CPU output) of one output, and whether that
    is beyond the precision's noise. `step`: the output's quantization step; a quantized output
    whose every element is within one step of the CPU's passes the max-error test whatever its
    magnitude (a kernel computing in another precision rounds to the neighbouring step), not the
    cosine (an output of a step or two carries no measure of its values: wrong, not right). At fp16
    an op that `moves` values without computing new ones (MOVING: a mask's -1e9 fill through
    SELECT_V2) stores one half cannot hold as an infinity of its sign, which is right: that is half
    storage, not the kernel. An op computing past half's range (a long SUM) is wrong there. A NaN
    on both sides at the same element is equal: the model computes it (litert-torch's masks)."""
    g, w = np.asarray(got, np.float64).ravel(), np.asarray(want, np.float64).ravel()
    both = np.isnan(g) & np.isnan(w)  # a NaN the model computes on purpose (litert-torch fills a mask with NaN)
    g, w = g[~both], w[~both]
    if precision == "fp16" and moves:
        g = np.where((np.abs(w) > HALF_MAX) & (np.abs(g) >= HALF_MAX) & (np.sign(g) == np.sign(w)), w, g)
    norm = float(np.linalg.norm(g) * np.linalg.norm(w))
    if np.array_equal(g, w) or not norm:  # equal (a mask's -inf fill too, whose norm is no number), or zeros
        cosine = float(np.array_equal(g, w))
    elif np.isfinite(norm):
        cosine = float(g @ w / norm)
    else:  # an infinity on one side: as the largest float
        a, b = np.nan_to_num(g), np.nan_to_num(w)
        cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0))
    absolute = max_abs_error(g, w)  # verify's own measure: a NaN is an error
    error = absolute / (magnitude(w) or 1.0)
    min_cos, max_err = NOISE[precision]
    return {"cosine": round(cosine, 4), "max_error": float(f"{error:.3g}"),
            "wrong": cosine < min_cos or (error > max_err and absolute > step * 1.001)}  # 1.001: float rounding


def near_threshold(r: dict, precision: str, key: str = "") -> bool:
    """Whether a verdict is one the drawn values decide: its max error or its cosine within a
    factor of 2 of the precision's threshold (a single-output FULLY_CONNECTED at fp16 measures
    0.0125 of its output in one batch and 0.0008 in another), or, at fp16, one of an op whose
    output jumps by a whole step where half's rounding moves an input across a boundary (STEPPED,
    named first in `key`: FLOOR_MOD wrong in one set of sizes, right in the other)."""
    min_cos, max_err = NOISE[precision]
    return (precision == "fp16" and key.split(" ", 1)[0] in STEPPED) or max_err / 2 <= r["max_error"] <= max_err * 2 \
        or (1 - min_cos) / 2 <= 1 - r["cosine"] <= (1 - min_cos) * 2


def by_key(measured: list[tuple[str, str | None, dict, str]], recorded: dict[str, dict] | None = None
           ) -> dict[str, dict]:
    """Verdicts per form key from (name, key, {precision: result}, example) of each form run:
    wrong at a precision when any form of the key is, with the worst form (the first by name of
    equals) as the evidence; added to the keys of `recorded` (a table recorded before)."""
    out: dict[str, dict] = dict(recorded or {})
    for _, key, result, example in sorted(measured, key=lambda m: m[0]):
        if key is None:
            continue
        entry = out.setdefault(key, {})
        for precision, r in result.items():
            worst = entry.get(precision)
            if worst is None or (r["wrong"], -r["cosine"]) > (worst["wrong"], -worst["cosine"]):
                entry[precision] = {**r, "example": example}
    return dict(sorted(across_binary_ops(out).items()))


def across_binary_ops(table: dict[str, dict]) -> dict[str, dict]:
    """A binary form measured wrong for one op is wrong for every op of the same form: the
    delegate lays out the operands of every binary elementwise op alike (ADD, SUB, MUL and
    SQUARED_DIFFERENCE agree on every form), and MAXIMUM / MINIMUM come out right in a wrong
    layout only when the misplaced values happen to lose every comparison. The evidence names the
    op that showed it. Only a wrong cosine spreads (a wrong layout moves values); a max error alone
    is the op's own rounding (a one-element SUB near 0 at fp16), not its form's."""
    worst: dict[tuple[str, str], tuple[str, dict]] = {}
    for key, entry in table.items():
        op, form = key.split(" ", 1)
        if op in keys.BINARY:
            for precision, r in _verdicts(entry):
                seen = worst.get((form, precision))
                if r["cosine"] < NOISE[precision][0] and (seen is None or r["cosine"] < seen[1]["cosine"]):
                    worst[(form, precision)] = (op, r)
    out = {}
    for key, entry in table.items():
        op, form = key.split(" ", 1)
        out[key] = dict(entry)
        for precision, r in _verdicts(entry):
            shown = worst.get((form, precision)) if op in keys.BINARY and not r["wrong"] else None
            if shown:
                out[key][precision] = {**shown[1], "example": f"{shown[1]['example']}; the same form of {shown[0]} "
                                       f"(measured right for {op}: cosine {r['cosine']})"}
    return out


def _verdicts(entry: dict) -> list[tuple[str, dict]]:
    """A key's (precision, verdict) pairs, without what else it records (the GL table's "build")."""
    return [(p, entry[p]) for p in NOISE if p in entry]


def record(which: str, grid: list[Form], seconds: float) -> dict:
    """A profile file's "grid": which grid ran, its forms, the ones left out and why, the time it
    took and the verdicts per form key (forms left out count nowhere)."""
    from gpucompat.rules.support.calibration import THRESHOLDS

    return {"run": which, "forms": len(grid), "seconds": round(seconds), "thresholds": THRESHOLDS,
            "left_out": {f.name: f.refused for f in grid if f.refused},
            "table": by_key([(f.name, f.key, f.result, f.example) for f in grid if f.result])}
