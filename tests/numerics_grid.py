"""The numerics calibration grid: every op form (rules/support/forms.py) run on LiteRT's real GPU
accelerator, at fp32 and at its default precision (fp16), against the CPU interpreter on the same
seeded inputs.

The form keys are finite, and the grid enumerates them: every binary elementwise op with every
pair of operand shapes written in `n`/`1` up to rank 4 (a constant second operand, a constant
first for SUB and DIV, two runtime operands), every elementwise op of one operand and SOFTMAX at
ranks 1-4, TRANSPOSE per permutation, SLICE / STRIDED_SLICE per set of axes, CONCATENATION per
axis and kind of operand, RESHAPE per pair of ranks, PAD per set of axes and reductions per set
of axes. Each key is measured at two sets of sizes (`SIZES`: the last axis a multiple of 4 and
not), plus the hand-picked forms of earlier issues; a key is wrong when any of its forms is.

Many independent forms go into one model with one output each (one shader compilation per model
and precision, not one per form); each form has inputs of its own. Each form's verdict is filed
under its key (form_of of the first op that reads the form's inputs). A batch must run fully
delegated: forms the litert-mldrift profile says the accelerator does not take are left out
before the run, and a batch the accelerator refuses is split until the form it refuses is found
and left out (reported). `python tests/numerics_grid.py` re-records rules/support/calibration/litert_gpu.json
(resumable, progress in GRID_PROGRESS); `python tests/numerics_grid.py GROUP...` records only those
groups and adds their keys to it. `tests/test_fidelity_numerics.py` re-runs a fixed sample.

FULLY_CONNECTED and DIV by a constant are written op by op (tests/irbuild.py), not converted: TF's
converter picks FULLY_CONNECTED's rank, keep_num_dims and weight type itself, and writes a DIV by a
constant as a MUL by its reciprocal.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpucompat.calibrate import grid as calibrate_grid  # noqa: E402
from gpucompat.calibrate.grid import NOISE, judge  # noqa: E402
from modelgen import const, tf  # noqa: E402

F, I32 = np.float32, np.int32
BATCH = 300  # forms per model
# Sizes of the output axes, from the last: the last a multiple of 4 in one set and not in the other.
SIZES = ((8, 3, 5, 2), (7, 4, 6, 3))
BINARY_OPS = {
    "ADD": lambda t, a, b: a + b,
    "SUB": lambda t, a, b: a - b,
    "MUL": lambda t, a, b: a * b,
    "DIV": lambda t, a, b: a / b,
    "MAXIMUM": lambda t, a, b: t.maximum(a, b),
    "MINIMUM": lambda t, a, b: t.minimum(a, b),
    "SQUARED_DIFFERENCE": lambda t, a, b: t.math.squared_difference(a, b),
}
# The elementwise ops of one operand that TF's converter writes, and the draw their input needs.
UNARY_OPS = {
    "ABS": (lambda t, a: t.abs(a), "normal"), "CEIL": (lambda t, a: t.math.ceil(a), "normal"),
    "COS": (lambda t, a: t.cos(a), "normal"), "EXP": (lambda t, a: t.exp(a), "normal"),
    "FLOOR": (lambda t, a: t.floor(a), "normal"), "LOG": (lambda t, a: t.math.log(a), "away"),
    "NEG": (lambda t, a: -a, "normal"), "ROUND": (lambda t, a: t.round(a), "normal"),
    "SIN": (lambda t, a: t.sin(a), "normal"), "SQRT": (lambda t, a: t.sqrt(a), "away"),
    "SQUARE": (lambda t, a: t.square(a), "normal"), "ELU": (lambda t, a: t.nn.elu(a), "normal"),
    "GELU": (lambda t, a: t.nn.gelu(a, approximate=False), "normal"),
    "SIGN": (lambda t, a: t.sign(a), "normal"), "LEAKY_RELU": (lambda t, a: t.nn.leaky_relu(a, 0.1), "normal"),
    "RSQRT": (lambda t, a: t.math.rsqrt(a), "away"), "TANH": (lambda t, a: t.tanh(a), "normal"),
    "LOGISTIC": (lambda t, a: t.sigmoid(a), "normal"), "RELU": (lambda t, a: t.nn.relu(a), "normal"),
    "RELU6": (lambda t, a: t.nn.relu6(a), "normal"),
}
REDUCE_OPS = {"SUM": "reduce_sum", "MEAN": "reduce_mean", "REDUCE_MAX": "reduce_max", "REDUCE_MIN": "reduce_min",
              "REDUCE_PROD": "reduce_prod"}


@dataclass
class Form:
    """One form: a function of TensorFlow and its inputs, the inputs' (shape, dtype), and how the
    inputs are drawn: normal N(0, 1), away (|N| + 0.5, a divisor), big (U(5, 7): fp16 sums
    pass 65504), ids (integers below `ids`)."""

    name: str
    fn: object
    inputs: list
    draw: str = "normal"
    ids: int = 0
    # (the op the converter writes for it, the op it becomes in the file): ops TF's converter never
    # writes; a GATHER becoming EMBEDDING_LOOKUP also reads (ids, table)
    retype: tuple[str, str] | None = None
    # written op by op (tests/irbuild.py) instead of converted: `fn` takes (IRModel, input
    # tensors, exact) and returns its output tensor; with `exact` it writes int8 weights as the
    # float values they stand for (the reference the accelerator is also judged against)
    written: bool = False
    key: str | None = None  # filled from the converted model
    result: dict = field(default_factory=dict)  # precision -> {"cosine", "max_error", "wrong"}
    refused: str | None = None  # why the form was left out of its batch


def patterns(rank: int) -> list[str]:
    """Every shape of `rank` written in n/1 ("n1n"), "" for rank 0."""
    return ["".join(p) for p in itertools.product("n1", repeat=rank)]


def shape_of(pattern: str, sizes: tuple[int, ...]) -> list[int]:
    """The shape of `pattern`, its axes aligned from the right to the output sizes `sizes`."""
    r = len(pattern)
    return [sizes[r - 1 - i] if c == "n" else 1 for i, c in enumerate(pattern)]


def _name(op: str, *parts: str) -> str:
    return "_".join([op.lower(), *(p or "s" for p in parts)])


def _binary_forms(kind: str, v: int) -> list[Form]:
    """Every binary form of one kind: "const" (constant second), "first" (constant first, SUB and
    DIV), "runtime" (two runtime operands), with sizes SIZES[v]."""
    sizes, forms = SIZES[v], []
    all_patterns = [p for r in range(5) for p in patterns(r)]
    for op, f in BINARY_OPS.items():
        if kind == "first" and op not in ("SUB", "DIV"):
            continue
        c = functools.partial(_operand, op=op)
        for pa, pb in itertools.product(all_patterns, all_patterns):
            sa, sb = shape_of(pa, sizes), shape_of(pb, sizes)
            if kind == "const":
                forms.append(Form(_name(op, "r" + pa, "c" + pb, str(v)), lambda t, a, s=sb, f=f, c=c: f(t, a, c(s)),
                                  [(sa, F)]))
            elif kind == "first":
                forms.append(Form(_name(op, "c" + pa, "r" + pb, str(v)),
                                  lambda t, b, s=sa, f=f: f(t, np.abs(const(s, 4)) + 4.0, b), [(sb, F)], "away"))
            elif (pa == "") == (pb == ""):  # a runtime scalar with a runtime tensor is not delegated
                forms.append(Form(_name(op, "r" + pa, "r" + pb, str(v)), lambda t, a, b, f=f: f(t, a, b),
                                  [(sa, F), (sb, F)], "away" if op == "DIV" else "normal"))
    return forms


def _unary_forms(v: int) -> list[Form]:
    """Every one-operand op and SOFTMAX: the former at ranks 1-4 (all axes above 1, and a leading
    1), SOFTMAX at every shape of rank 1-4."""
    sizes, forms = SIZES[v], []
    for op, (f, draw) in UNARY_OPS.items():
        for r in range(1, 5):
            for p in {"n" * r, "1" + "n" * (r - 1)}:
                forms.append(Form(_name(op, p, str(v)), lambda t, a, f=f: f(t, a), [(shape_of(p, sizes), F)], draw))
    for r in range(1, 5):
        for p in patterns(r):
            forms.append(Form(_name("softmax", p, str(v)), lambda t, a: t.nn.softmax(a), [(shape_of(p, sizes), F)]))
    return forms


def _subsets(r: int) -> list[tuple[int, ...]]:
    return [s for k in range(1, r + 1) for s in itertools.combinations(range(r), k)]


def _layout_forms(v: int) -> list[Form]:
    """TRANSPOSE per permutation, SLICE / STRIDED_SLICE per set of axes, CONCATENATION per axis
    and operand kinds, RESHAPE per pair of ranks, PAD / PADV2 per set of axes (rank 3-4: lower
    ranks are not delegated)."""
    sizes, forms = SIZES[v], []
    for r in range(1, 5):
        shape = shape_of("n" * r, sizes)
        for perm in itertools.permutations(range(r)):
            if list(perm) != list(range(r)):
                forms.append(Form(_name("transpose", "".join(map(str, perm)), str(v)),
                                  lambda t, a, p=perm: t.transpose(a, p), [(shape, F)]))
        for axes in _subsets(r):
            tag = "".join(map(str, axes))
            begin, size = [0] * r, list(shape)
            for ax in axes:
                begin[ax], size[ax] = 1, shape[ax] - 1
            forms.append(Form(_name("slice", str(r), tag, str(v)), lambda t, a, b=begin, s=size: t.slice(a, b, s),
                              [(shape, F)]))
            step = tuple(slice(1, None, 2) if i in axes else slice(None) for i in range(r))
            forms.append(Form(_name("sslice", str(r), tag, str(v)), lambda t, a, s=step: a[s], [(shape, F)]))
            if r >= 3:
                pads = [[1, 2] if i in axes else [0, 0] for i in range(r)]
                forms.append(Form(_name("pad", str(r), tag, str(v)), lambda t, a, p=pads: t.pad(a, p), [(shape, F)]))
                forms.append(Form(_name("padv2", str(r), tag, str(v)),
                                  lambda t, a, p=pads: t.pad(a, p, constant_values=1.5), [(shape, F)]))
        for ax in range(r):
            forms.append(Form(_name("concat", str(r), str(ax), "rr", str(v)),
                              lambda t, a, b, ax=ax: t.concat([a, b], ax), [(shape, F), (shape, F)]))
            forms.append(Form(_name("concat", str(r), str(ax), "rc", str(v)),
                              lambda t, a, ax=ax, s=shape: t.concat([a, const(s, 5)], ax), [(shape, F)]))
            forms.append(Form(_name("concat", str(r), str(ax), "cr", str(v)),
                              lambda t, a, ax=ax, s=shape: t.concat([const(s, 5), a], ax), [(shape, F)]))
    by_rank = {1: [24], 2: [6, 4], 3: [2, 3, 4], 4: [2, 1, 3, 4]} if v == 0 else \
        {1: [30], 2: [5, 6], 3: [5, 2, 3], 4: [1, 5, 3, 2]}
    for ri, ro in itertools.product(by_rank, by_rank):
        target = by_rank[ro] if ri != ro else by_rank[ro][::-1]
        forms.append(Form(_name("reshape", str(ri), str(ro), str(v)), lambda t, a, s=target: t.nn.relu(t.reshape(a, s)),
                          [(by_rank[ri], F)]))
    return forms


def _reshape_forms() -> list[Form]:
    """RESHAPE from every rank 0-4 to every other (and within a rank), followed by an ADD of a
    second runtime tensor (every runtime pair is computed right) that the converter cannot move
    before it, as it moves a one-operand op."""
    shapes = [{0: [], 1: [1], 2: [1, 1], 3: [1, 1, 1], 4: [1, 1, 1, 1]},
              {1: [24], 2: [6, 4], 3: [2, 3, 4], 4: [2, 1, 3, 4]}, {1: [30], 2: [5, 6], 3: [5, 2, 3], 4: [1, 5, 3, 2]}]
    forms = []
    for v, by_rank in enumerate(shapes):
        for ri, ro in itertools.product(by_rank, by_rank):
            target = by_rank[ro] if ri != ro else by_rank[ro][::-1]
            if target != by_rank[ri]:
                forms.append(Form(_name("reshaped", str(ri), str(ro), str(v)),
                                  lambda t, a, b, s=target: t.reshape(a, s) + b, [(by_rank[ri], F), (target, F)]))
    return forms


def _strided_forms(v: int) -> list[Form]:
    """STRIDED_SLICE as converters write Python slicing: step 1 (`a[:, 1:]`, the commonest) and
    step 3 per set of axes, and an index dropping one axis (`a[:, 1]`), at ranks 1-4."""
    sizes, forms = SIZES[v], []
    for r in range(1, 5):
        shape = shape_of("n" * r, sizes)
        for axes, step in itertools.product(_subsets(r), (1, 3)):
            cut = tuple(slice(1, None, step) if i in axes else slice(None) for i in range(r))
            forms.append(Form(_name("sslice", str(r), "".join(map(str, axes)), f"s{step}", str(v)),
                              lambda t, a, s=cut: a[s], [(shape, F)]))
        for ax in range(r if r > 1 else 0):
            drop = tuple(1 if i == ax else slice(None) for i in range(r))
            forms.append(Form(_name("sslice", str(r), "drop", str(ax), str(v)), lambda t, a, s=drop: a[s],
                              [(shape, F)]))
    return forms


def _relabelled_forms() -> list[Form]:
    """HARD_SWISH and RELU_N1_TO_1, which TF's converter does not write: its RELU relabelled."""
    return [Form(_name(op, p, str(v)), lambda t, a: t.nn.relu(a), [(shape_of(p, SIZES[v]), F)], retype=("RELU", op))
            for op in ("HARD_SWISH", "RELU_N1_TO_1") for v in (0, 1) for r in range(1, 5)
            for p in sorted({"n" * r, "1" + "n" * (r - 1)})]


def _reduction_forms(v: int) -> list[Form]:
    """Every reduction over every set of axes at ranks 1-4, keeping the axes or not; and long
    ones (1024 elements or more into each output) with values whose fp16 totals grow large."""
    sizes, forms = SIZES[v], []
    long_sizes = {1: (1024,), 2: (32, 32), 3: (8, 8, 16), 4: (4, 8, 8, 4)}
    for op, fn in REDUCE_OPS.items():
        for r in range(1, 5):
            shape = shape_of("n" * r, sizes)
            for axes, keep in itertools.product(_subsets(r), (False, True)):
                tag = "".join(map(str, axes)) + ("k" if keep else "")
                forms.append(Form(_name(op, str(r), tag, str(v)),
                                  lambda t, a, fn=fn, ax=list(axes), k=keep: getattr(t, fn)(a, axis=ax, keepdims=k),
                                  [(shape, F)]))
                if op == "REDUCE_PROD" or v:  # products of 1024 values leave fp32's range
                    continue
                big = iter(long_sizes[len(axes)])
                wide = [next(big) if i in axes else 2 for i in range(r)]
                forms.append(Form(_name(op, str(r), tag, "long"),
                                  lambda t, a, fn=fn, ax=list(axes), k=keep: getattr(t, fn)(a, axis=ax, keepdims=k),
                                  [(wide, F)], "big"))
    return forms


def _table_forms() -> list[Form]:
    """The sizes of issue 18's table, and neighbours of the same forms at other sizes."""
    t_arange = np.arange(4, dtype=F)
    return [
        Form("tbl_pad3_mid", lambda t, a: t.pad(a, [[0, 0], [16, 16], [0, 0]]), [([16, 32, 1], F)]),
        Form("tbl_add_85x16_c1x85x16", lambda t, a: a + const([1, 85, 16], 6), [([85, 16], F)]),
        Form("tbl_mul_512x1024_c1x1x1024", lambda t, a: a * const([1, 1, 1024], 7), [([512, 1024], F)]),
        Form("tbl_add_scalar_arange", lambda t, a: a + t_arange, [([], F)]),
        Form("tbl_add_4096x256_same", lambda t, a: a + const([4096, 256], 8), [([4096, 256], F)]),
        Form("tbl_add_1x4096x256_same", lambda t, a: a + const([1, 4096, 256], 8), [([1, 4096, 256], F)]),
        Form("tbl_add_2x2_same", lambda t, a: a + const([2, 2], 9), [([2, 2], F)]),
        Form("tbl_add_4d_big_same", lambda t, a: a + const([1, 64, 64, 64], 8), [([1, 64, 64, 64], F)]),
        Form("sum_long_big", lambda t, a: t.reduce_sum(a, axis=[1, 2]), [([1, 112, 112, 32], F)], "big"),
        Form("mean_long_big", lambda t, a: t.reduce_mean(a, axis=[1, 2]), [([1, 112, 112, 32], F)], "big"),
        Form("max_long_big", lambda t, a: t.reduce_max(a, axis=[1, 2]), [([1, 112, 112, 32], F)], "big"),
        Form("sum_rank2_long", lambda t, a: t.reduce_sum(a, axis=[1]), [([4, 8192], F)]),
    ]


def _lookup_forms() -> list[Form]:
    """EMBEDDING_LOOKUP, which TensorFlow 2.21's converter never writes (tf.nn.embedding_lookup
    becomes GATHER): the converter's GATHER of a constant table by runtime ids, retyped in the
    file (EMBEDDING_LOOKUP reads ids first, then the table). A rank-3 table aborts the process
    (model_builder_helper.cc:329 "Check failed: dims->size == 2"), so only rank 2 is here."""
    return [
        Form(
            f"lookup_{rows}x{cols}",
            lambda t, i, s=(rows, cols): t.gather(const(list(s), 10), i) * 1.0,
            [([5], I32)],
            "ids",
            rows,
            ("GATHER", "EMBEDDING_LOOKUP"),
        )
        for rows, cols in ((32, 16), (1000, 64))
    ]


def _written_div_forms(v: int) -> list[Form]:
    """DIV of a runtime tensor by a constant, every pair of shapes up to rank 4: TF's converter
    writes a MUL by the reciprocal instead, other exporters (litert-torch, onnx2tf) write the DIV."""
    sizes, forms = SIZES[v], []
    all_patterns = [p for r in range(5) for p in patterns(r)]
    for pa, pb in itertools.product(all_patterns, all_patterns):
        sa, sb = shape_of(pa, sizes), shape_of(pb, sizes)
        out = list(np.broadcast_shapes(tuple(sa), tuple(sb)))
        forms.append(Form(_name("div", "r" + pa, "c" + pb, "w" + str(v)),
                          lambda m, ins, exact, s=sb, o=out: m.op("DIV", [ins[0], m.const("c", _operand(s, "DIV"))], o,
                                                                  options=fb().DivOptionsT()),
                          [(sa, F)], written=True))
    return forms


FC_IN, FC_UNITS = (8, 7), (5, 6)  # input features and units of FULLY_CONNECTED, per set of sizes
FC_WEIGHTS = ("float32", "runtime", "float16", "int8")  # constant float32, runtime, fp16 via DEQUANTIZE, int8


def _fully_connected_forms(v: int) -> list[Form]:
    """FULLY_CONNECTED of every input shape of rank 1-4 (the last axis its features), keeping the
    dims or not, with units n or 1, weights constant float32 / float16 behind a DEQUANTIZE / int8
    (dynamic range) or runtime, with a bias or not, written op by op (TF's converter decides the
    rank, keep_num_dims and weight type itself)."""
    sizes = (FC_IN[v], *SIZES[v][1:])
    forms = []
    for r in range(1, 5):
        for p, keep, units, weights, bias in itertools.product(patterns(r), (False, True), (FC_UNITS[v], 1),
                                                                 FC_WEIGHTS, (False, True)):
            x = shape_of(p, sizes)
            tag = f"{p}{'k' if keep else ''}u{units}{weights[0]}{weights[-1]}{'b' if bias else ''}"
            forms.append(Form(_name("fc", tag, str(v)), functools.partial(_fully_connected, x=x, units=units, keep=keep,
                                                                         weights=weights, bias=bias),
                              [(x, F), ([units, x[-1]], F)] if weights == "runtime" else [(x, F)], written=True))
    return forms


def _fully_connected(m, ins, exact: bool, x, units: int, keep: bool, weights: str, bias: bool):
    """One FULLY_CONNECTED in the IRModel `m` (see _fully_connected_forms)."""
    out = [*x[:-1], units] if keep else [int(np.prod(x[:-1])), units]
    w = const([units, x[-1]], 11)
    if weights == "runtime":
        wt = ins[1]
    elif weights == "float16":
        wt = m.op("DEQUANTIZE", [m.const("w16", w.astype(np.float16))], w.shape)
    elif weights == "int8":
        scale = np.abs(w).max(axis=1) / 127
        q = np.clip(np.round(w / scale[:, None]), -127, 127).astype(np.int8)
        wt = m.const("w", (q * scale[:, None]).astype(F)) if exact else \
            m.graph.tensor("w8", q.shape, fb().TensorType.INT8, q, (scale.astype(F), [0] * units, 0))
    else:
        wt = m.const("w", w)
    options = fb().FullyConnectedOptionsT()
    options.keepNumDims = keep
    b = m.const("b", const([units], 12)) if bias else -1
    return m.op("FULLY_CONNECTED", [ins[0], wt, b], out, options=options)


def fb():
    """The flatbuffer schema's object API (imported when a written form is built)."""
    from ai_edge_litert import schema_py_generated

    return schema_py_generated


def _operand(shape, op: str) -> np.ndarray:
    """A binary op's constant operand: away from 0 for DIV."""
    v = const(shape, 3)
    return np.abs(v) + 0.5 if op == "DIV" else v


def groups() -> dict[str, list[Form]]:
    """Every form of the grid, in groups in the order they are recorded (the most used first)."""
    return {
        "binary, constant second": [*_binary_forms("const", 0), *_table_forms()],
        "one operand, layout, reductions": [*_unary_forms(0), *_layout_forms(0), *_reduction_forms(0),
                                            *_lookup_forms()],
        "binary, constant first": _binary_forms("first", 0),
        "binary, two runtime operands": _binary_forms("runtime", 0),
        "second sizes, constant second": _binary_forms("const", 1),
        "RESHAPE and relabelled one-operand ops": [*_reshape_forms(), *_relabelled_forms()],
        "written: DIV by a constant": _written_div_forms(0),
        "written: FULLY_CONNECTED": _fully_connected_forms(0),
        "STRIDED_SLICE steps 1 and 3, dropping an axis": [*_strided_forms(0), *_strided_forms(1)],
        "written, second sizes": [*_written_div_forms(1), *_fully_connected_forms(1)],
        "second sizes, the rest": [*_unary_forms(1), *_layout_forms(1), *_reduction_forms(1),
                                   *_binary_forms("first", 1), *_binary_forms("runtime", 1)],
    }


def forms() -> list[Form]:
    """Every form of the grid."""
    return [f for group in groups().values() for f in group]


SAMPLE_EVERY = 40  # the fidelity suite runs one enumerated form in this many, and every hand-picked one


def sample() -> list[Form]:
    """The fixed sample the fidelity suite re-runs: the hand-picked forms, and every SAMPLE_EVERY-th
    form of the rest (all groups, both sizes)."""
    hand = {f.name for f in (*_table_forms(), *_lookup_forms())}
    return [f for i, f in enumerate(forms()) if f.name in hand or i % SAMPLE_EVERY == 0]


def convert(batch: list[Form], exact: bool = False) -> bytes:
    """One model computing every form of `batch`, input names `<form>__<j>` (written op by op
    when the forms are, `exact` as Form.written says)."""
    if batch[0].written:
        return _written(batch, exact)
    t = tf()
    specs = [t.TensorSpec(list(s), d, name=f"{f.name}__{j}") for f in batch for j, (s, d) in enumerate(f.inputs)]

    class Module(t.Module):
        @t.function(input_signature=specs, autograph=False)
        def __call__(self, *args):
            out, k = {}, 0
            for f in batch:
                out[f.name] = f.fn(t, *args[k : k + len(f.inputs)])
                k += len(f.inputs)
            return out

    module = Module()
    conv = t.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    return conv.convert()


def _written(batch: list[Form], exact: bool) -> bytes:
    from irbuild import IRModel

    m = IRModel()
    for f in batch:
        ins = [m.input(f"{f.name}__{j}", s, "FLOAT32" if d == F else "INT32") for j, (s, d) in enumerate(f.inputs)]
        m.output(f.fn(m, ins, exact))
    return m.bytes()


def _retyped(data: bytes, batch: list[Form]) -> bytes:
    """The converted model with the op each `retype` form's input feeds turned into another."""
    from gpucompat import ir
    from gpucompat.ir import build

    wanted = {f.name: f.retype for f in batch if f.retype}
    if not wanted:
        return data
    model = ir.from_bytes(data)
    graph = model.graphs[0]
    for t in graph.inputs:
        if _form_name(t) in wanted:
            written, becomes = wanted[_form_name(t)]
            (op,) = [o for o in t.consumers if o.name == written]
            build.retype(op, becomes)
            if becomes == "EMBEDDING_LOOKUP":
                op.inputs = [op.inputs[1], op.inputs[0]]
    graph.link()
    return ir.to_bytes(model)


def _form_name(t) -> str:
    """The form a graph input belongs to (`serving_default_<form>__<j>:0`)."""
    return t.name.split(":")[0].removeprefix("serving_default_").rsplit("__", 1)[0]


def _draw(f: Form, shape, dtype, gen: np.random.Generator) -> np.ndarray:
    if f.draw == "ids":
        return gen.integers(0, f.ids, shape).astype(dtype)
    if f.draw == "big":
        return gen.uniform(5.0, 7.0, shape).astype(dtype)
    v = gen.standard_normal(shape).astype(dtype)
    return (np.abs(v) + 0.5).astype(dtype) if f.draw == "away" else v


def run_batch(batch: list[Form], path: str, seed: int = 0, log=None) -> None:
    """Convert, leave out the forms the profile says the accelerator does not take, run on the CPU
    and on the accelerator at both precisions, fill each form's key and result. A batch the
    accelerator refuses is split in two until the refused form is alone; it is left out with
    `refused` saying why."""
    from gpucompat.confirm.runner import NoDevice
    from gpucompat.errors import GpucompatError

    kept = [f for f in batch if f.refused is None]
    if not kept:
        return
    data = _retyped(convert(kept), kept)
    declined = _not_delegated(data, kept)
    if declined:
        for f in declined:
            f.refused = "the litert-mldrift profile predicts the accelerator does not take it"
        kept = [f for f in kept if f.refused is None]
        if not kept:
            return
        data = _retyped(convert(kept), kept)
    try:
        _run(data, kept, path, seed)
    except NoDevice:
        raise
    except GpucompatError as e:
        if len(kept) == 1:
            kept[0].refused = str(e).replace(path, kept[0].name)
            if log:
                log(f"left out {kept[0].name}: {kept[0].refused}")
            return
        half = len(kept) // 2
        run_batch(kept[:half], path, seed, log)
        run_batch(kept[half:], path, seed, log)


def _not_delegated(data: bytes, batch: list[Form]) -> list[Form]:
    """The forms with an op the litert-mldrift profile says the accelerator does not take."""
    from gpucompat import ir
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.judging import judge_graph
    from gpucompat.rules.support.profile import Options

    graph = ir.from_bytes(data).graphs[0]
    verdicts = judge_graph(graph, registry.get("litert-mldrift"), Options()).verdicts
    by_name = {f.name: f for f in batch}
    out = []
    for op, v in zip(graph.ops, verdicts):
        if not v.ok:
            out.extend(_owners(op, by_name))
    return list({id(f): f for f in out}.values())


def _owners(op, by_name: dict[str, Form]) -> list[Form]:
    """The forms whose inputs an op reads, directly or not."""
    return [_owner(t, by_name) for t in op.outputs[:1]]


def _run(data: bytes, batch: list[Form], path: str, seed: int) -> None:
    from gpucompat import ir
    from gpucompat.rules.support.forms import form_of
    from gpucompat.runners.litert_gpu.infer import run_on_accelerator
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    with open(path, "wb") as fh:
        fh.write(data)
    graph = ir.from_bytes(data, path).graphs[0]
    by_name = {f.name: f for f in batch}
    gen = np.random.default_rng(seed)
    feeds = [
        _draw(by_name[_form_name(t)], t.shape, np.dtype(F if t.dtype_name == "FLOAT32" else I32), gen)
        for t in graph.inputs
    ]
    owner = [_owner(t, by_name) for t in graph.outputs]
    reference = _written(batch, exact=True) if batch[0].written else data  # int8 weights: the values they stand for
    ref = run_reference(reference_interpreter(reference, path), feeds)
    got = {p: run_on_accelerator(path, [feeds], [t.index for t in graph.inputs], [t.index for t in graph.outputs],
                                 precision=p).outputs[0] for p in NOISE}
    for t in graph.inputs:
        if t.name.split(":")[0].endswith("__0"):  # the key is that of the op reading the form's first input
            form = by_name[_form_name(t)]
            form.key = next((k for k in map(form_of, t.consumers) if k), None)
    for precision in NOISE:
        for f, g, r in zip(owner, got[precision], ref):
            f.result[precision] = judge(g, r, precision)


def _owner(out, by_name: dict[str, Form]) -> Form:
    """The form whose inputs an output is computed from."""
    seen, todo = set(), [out]
    while todo:
        t = todo.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.producer is None:
            if _form_name(t) in by_name and any(t is i for i in t.graph.inputs):
                return by_name[_form_name(t)]
            continue
        todo.extend(t.producer.present_inputs)
    raise ValueError(f"output {out.name!r} reads no form's input")


def run_grid(directory: str, grid: list[Form], seed: int = 0, log=None) -> list[Form]:
    """Every form of `grid`, run in batches of BATCH (models written into `directory`); converted
    forms and forms written op by op go into models of their own."""
    for written in (False, True):
        part = [f for f in grid if f.written == written]
        for i in range(0, len(part), BATCH):
            path = os.path.join(directory, f"numerics_grid_{'written_' if written else ''}{i // BATCH}.tflite")
            run_batch(part[i : i + BATCH], path, seed, log)
    return grid


def by_key(grid: list[Form], recorded: dict[str, dict] | None = None) -> dict[str, dict]:
    """The grid's verdicts per form key, added to the keys of `recorded` (gpucompat/calibrate/grid.py by_key)."""
    return calibrate_grid.by_key([(f.name, f.key, f.result, _example(f)) for f in grid], recorded)


def _example(f: Form) -> str:
    return f"{f.name}: inputs {' and '.join(str(list(s)) for s, _ in f.inputs)}"


GRID_PROGRESS = os.path.expanduser("~/.cache/gpucompat-grid/progress.json")


def _record(only: list[str]) -> None:
    """Run every group not yet in GRID_PROGRESS, a batch at a time, and re-record the calibration
    after each batch (an interrupted run resumes where it stopped). With group names in `only`,
    run those groups alone (progress in a file of their own) and add their keys to the recorded
    table, which keeps every other key."""
    import tempfile

    from gpucompat.confirm.runner import launcher

    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    from gpucompat.rules.support import calibration

    unknown = sorted(set(only) - set(groups()))
    if unknown:
        sys.exit(f"numerics_grid.py: no group {unknown[0]!r}; the groups: {', '.join(groups())}")
    progress = GRID_PROGRESS.replace(".json", "-" + re.sub(r"\W+", "-", "+".join(only)) + ".json") if only \
        else GRID_PROGRESS
    recorded = calibration.load()["forms"] if only else None
    os.makedirs(os.path.dirname(progress), exist_ok=True)
    done: dict = {}
    if os.path.exists(progress):
        with open(progress) as fh:
            done = json.load(fh)
    driver = launcher().driver

    def log(msg: str) -> None:
        print(time.strftime("%H:%M:%S"), msg, flush=True)

    grid = {f.name: f for f in forms()}
    with tempfile.TemporaryDirectory() as tmp:
        for name, group in groups().items():
            if only and name not in only:
                continue
            todo = [f for f in group if f.name not in done]
            log(f"{name}: {len(group)} forms, {len(todo)} to run")
            for i in range(0, len(todo), BATCH):
                batch = todo[i : i + BATCH]
                run_batch(batch, os.path.join(tmp, "batch.tflite"), 0, log)
                done.update({f.name: {"key": f.key, "result": f.result, "refused": f.refused} for f in batch})
                with open(progress + ".tmp", "w") as fh:
                    json.dump(done, fh)
                os.replace(progress + ".tmp", progress)
                table = _write_table(done, grid, driver, recorded)
                log(f"{name}: {i + len(batch)}/{len(todo)}; {len(done)} forms, {len(table)} keys, "
                    f"{sum(1 for v in table.values() if v['fp32']['wrong'])} wrong at fp32")
    _write_table(done, grid, driver, recorded)


def _write_table(done: dict, grid: dict[str, Form], driver: str, recorded: dict | None) -> dict[str, dict]:
    """Record the verdicts per key of every form in `done` (the progress file's contents), added
    to `recorded` (the table as it was before a run of some groups only)."""
    from gpucompat.rules.support import calibration

    for name, seen in done.items():
        grid[name].key, grid[name].result = seen["key"], seen["result"]
    table = by_key([f for f in grid.values() if f.result], recorded)
    calibration.write(table, driver)
    return table


if __name__ == "__main__":
    _record(sys.argv[1:])  # group names (groups()): record only those, keeping the rest of the table
