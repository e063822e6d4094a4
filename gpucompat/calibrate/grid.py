"""The numerics grid of `gpucompat calibrate`: op forms (rules/support/forms.py) run on the installed
LiteRT's GPU accelerator at fp32 and at its default precision (fp16) against the CPU
interpreter on the same seeded inputs, written without TensorFlow.

The forms are the enumerated families of the suite's grid (tests/numerics_grid.py, which the
shipped table rules/support/calibration/litert_gpu.json was recorded with): every binary elementwise op
with every pair of operand shapes in `n`/`1` up to rank 4 (a constant second operand, a constant
first for SUB and DIV, two runtime operands), every one-operand op at ranks 1-4, SOFTMAX,
TRANSPOSE per permutation, SLICE / STRIDED_SLICE per set of axes, PAD / PADV2 per set of axes,
CONCATENATION per axis and kind of operand, RESHAPE per pair of ranks, every reduction per set
of axes, STRIDED_SLICE at steps 1 and 3 and dropping an axis, FULLY_CONNECTED of every input
shape up to rank 4 with every weight kind (int8 ones judged against the floats they stand for),
at two sets of sizes. Each form is the op a converter writes for it (float16 weights behind their
DEQUANTIZE), so its form key is the key of the converter's op. "full" runs them all (10 to 25
minutes on the software driver), "sample" one in SAMPLE_EVERY (40 s); a form key is wrong when any
of its forms is.
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
BATCH = 300  # forms per model: one shader compilation per model and precision
SAMPLE_EVERY = 40
SIZES = ((8, 3, 5, 2), (7, 4, 6, 3))  # output axes from the last: the last a multiple of 4, and not
AWAY = ("DIV", "LOG", "SQRT", "RSQRT")  # inputs drawn away from 0
OPTIONS = {"ADD": "Add", "SUB": "Sub", "MUL": "Mul", "DIV": "Div"}  # the binary ops with options


@dataclass
class Form:
    """One form: its name, how it adds its op to a model (inputs named `<name>__<j>`), and how its
    inputs are drawn ("normal" N(0, 1), "away" |N| + 0.5, "big" U(5, 7): fp16 sums pass 65504)."""

    name: str
    write: Callable[[Sketch, str, bool], object]  # (sketch, prefix, exact): exact writes int8 weights as floats
    draw: str = "normal"
    quantized: bool = False  # int8 weights: the CPU reference runs the float values they stand for
    key: str | None = None
    result: dict = field(default_factory=dict)  # precision -> {"cosine", "max_error", "wrong"}
    refused: str | None = None


def _options(cls: str | None, **fields):
    """The builtin options `<cls>OptionsT` with `fields` set; None for an op without options."""
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


def _shape(pattern: str, sizes: tuple[int, ...]) -> tuple[int, ...]:
    r = len(pattern)
    return tuple(sizes[r - 1 - i] if c == "n" else 1 for i, c in enumerate(pattern))


def _one(name: str, op: str, inputs: list[tuple], consts: list[np.ndarray], out: tuple, options=None,
         draw: str = "normal", const_first: bool = False) -> Form:
    """A form of one op reading runtime `inputs` (shapes) and constants `consts`."""
    def write(s: Sketch, prefix: str, exact: bool = False):
        runtime = [s.input(f"{prefix}__{j}", shape) for j, shape in enumerate(inputs)]
        fixed = [s.const(f"{prefix}_c{j}", v) for j, v in enumerate(consts)]
        return s.op(op, [*fixed, *runtime] if const_first else [*runtime, *fixed], out, options=options)
    return Form(name, write, draw)


def _binary(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    every = [p for r in range(5) for p in _patterns(r)]
    for op in keys.BINARY:
        draw, options = "away" if op == "DIV" else "normal", _options(OPTIONS.get(op))
        for pa, pb in itertools.product(every, every):
            sa, sb = _shape(pa, sizes), _shape(pb, sizes)
            out = np.broadcast_shapes(sa, sb)
            found.append(_one(f"{op}_r{pa}_c{pb}_{v}", op, [sa], [_const(sb, 3, op == "DIV")], out, options))
            if op in keys.ORDERED:
                found.append(_one(f"{op}_c{pa}_r{pb}_{v}", op, [sb], [_const(sa, 4, True)], out, options,
                                  "away", const_first=True))
            if (pa == "") == (pb == ""):  # a runtime scalar with a runtime tensor is not delegated
                found.append(_one(f"{op}_r{pa}_r{pb}_{v}", op, [sa, sb], [], out, options, draw))
    return found


def _unary(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    special = {"GELU": _options("Gelu"), "LEAKY_RELU": _options("LeakyRelu", alpha=0.1)}
    for op in keys.UNARY:
        options = special.get(op)
        for r in range(1, 5):
            for pattern in sorted({"n" * r, "1" + "n" * (r - 1)}):
                shape = _shape(pattern, sizes)
                found.append(_one(f"{op}_{pattern}_{v}", op, [shape], [], shape, options,
                                  "away" if op in AWAY else "normal"))
    for r in range(1, 5):
        for pattern in _patterns(r):
            shape = _shape(pattern, sizes)
            found.append(_one(f"SOFTMAX_{pattern}_{v}", "SOFTMAX", [shape], [], shape, _options("Softmax", beta=1.0)))
    return found


def _subsets(r: int) -> list[tuple[int, ...]]:
    return [s for k in range(1, r + 1) for s in itertools.combinations(range(r), k)]


def _ints(*values) -> np.ndarray:
    return np.asarray(values, np.int32)


def _layout(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    for r in range(1, 5):
        shape = _shape("n" * r, sizes)
        for perm in itertools.permutations(range(r)):
            if list(perm) != list(range(r)):
                found.append(_one(f"TRANSPOSE_{''.join(map(str, perm))}_{v}", "TRANSPOSE", [shape], [_ints(*perm)],
                                  tuple(shape[i] for i in perm)))
        for axes in _subsets(r):
            tag = "".join(map(str, axes))
            begin = [1 if i in axes else 0 for i in range(r)]
            size = [d - 1 if i in axes else d for i, d in enumerate(shape)]
            found.append(_one(f"SLICE_{r}_{tag}_{v}", "SLICE", [shape], [_ints(*begin), _ints(*size)], tuple(size)))
            stepped = tuple((d - 1 + 1) // 2 if i in axes else d for i, d in enumerate(shape))
            found.append(_one(f"STRIDED_SLICE_{r}_{tag}_{v}", "STRIDED_SLICE", [shape],
                              [_ints(*begin), _ints(*shape), _ints(*(2 if i in axes else 1 for i in range(r)))],
                              stepped, _options("StridedSlice")))
            if r >= 3:
                pads = np.asarray([[1, 2] if i in axes else [0, 0] for i in range(r)], np.int32)
                padded = tuple(d + 3 if i in axes else d for i, d in enumerate(shape))
                found.append(_one(f"PAD_{r}_{tag}_{v}", "PAD", [shape], [pads], padded))
                found.append(_one(f"PADV2_{r}_{tag}_{v}", "PADV2", [shape], [pads, np.asarray([1.5], np.float32)],
                                  padded))
        for ax in range(r):
            joined = tuple(d * 2 if i == ax else d for i, d in enumerate(shape))
            concat = _options("Concatenation", axis=ax)
            found.append(_one(f"CONCAT_{r}_{ax}_rr_{v}", "CONCATENATION", [shape, shape], [], joined, concat))
            found.append(_one(f"CONCAT_{r}_{ax}_rc_{v}", "CONCATENATION", [shape], [_const(shape, 5)], joined, concat))
            found.append(_one(f"CONCAT_{r}_{ax}_cr_{v}", "CONCATENATION", [shape], [_const(shape, 5)], joined, concat,
                              const_first=True))
    by_rank = {1: (24,), 2: (6, 4), 3: (2, 3, 4), 4: (2, 1, 3, 4)} if v == 0 else \
        {1: (30,), 2: (5, 6), 3: (5, 2, 3), 4: (1, 5, 3, 2)}
    for ri, ro in itertools.product(by_rank, by_rank):
        target = by_rank[ro] if ri != ro else by_rank[ro][::-1]
        found.append(_one(f"RESHAPE_{ri}_{ro}_{v}", "RESHAPE", [by_rank[ri]], [_ints(*target)], target,
                          _options("Reshape", newShape=list(target))))
    return found


def _reductions(v: int) -> list[Form]:
    sizes, found = SIZES[v], []
    long_sizes = {1: (1024,), 2: (32, 32), 3: (8, 8, 16), 4: (4, 8, 8, 4)}
    for op in keys.REDUCTIONS:
        for r in range(1, 5):
            shape = _shape("n" * r, sizes)
            for axes, keep in itertools.product(_subsets(r), (False, True)):
                tag = "".join(map(str, axes)) + ("k" if keep else "")
                options = _options("Reducer", keepDims=keep)
                found.append(_one(f"{op}_{r}_{tag}_{v}", op, [shape], [_ints(*axes)], _reduced(shape, axes, keep),
                                  options))
                if op == "REDUCE_PROD" or v:  # products of 1024 values leave fp32's range
                    continue
                big = iter(long_sizes[len(axes)])
                wide = tuple(next(big) if i in axes else 2 for i in range(r))
                found.append(_one(f"{op}_{r}_{tag}_long", op, [wide], [_ints(*axes)], _reduced(wide, axes, keep),
                                  options, "big"))
    return found


def _reduced(shape: tuple, axes: tuple, keep: bool) -> tuple:
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes)


def _strided(v: int) -> list[Form]:
    """STRIDED_SLICE as Python slicing writes it: step 1 (`a[:, 1:]`) and step 3 per set of axes,
    and an index dropping one axis (`a[:, 1]`), at ranks 1-4."""
    sizes, found = SIZES[v], []
    for r in range(1, 5):
        shape = _shape("n" * r, sizes)
        for axes, step in itertools.product(_subsets(r), (1, 3)):
            begin = [1 if i in axes else 0 for i in range(r)]
            out = tuple(len(range(1, d, step)) if i in axes else d for i, d in enumerate(shape))
            found.append(_one(f"STRIDED_SLICE_{r}_{''.join(map(str, axes))}_s{step}_{v}", "STRIDED_SLICE", [shape],
                              [_ints(*begin), _ints(*shape), _ints(*(step if i in axes else 1 for i in range(r)))],
                              out, _options("StridedSlice")))
        for ax in range(r if r > 1 else 0):
            begin, end = [1 if i == ax else 0 for i in range(r)], [2 if i == ax else d for i, d in enumerate(shape)]
            found.append(_one(f"STRIDED_SLICE_{r}_drop{ax}_{v}", "STRIDED_SLICE", [shape],
                              [_ints(*begin), _ints(*end), _ints(*([1] * r))],
                              tuple(d for i, d in enumerate(shape) if i != ax),
                              _options("StridedSlice", shrinkAxisMask=1 << ax)))
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
            found.append(Form(f"FC_{tag}_{v}", partial(_fc, x=_shape(p, sizes), units=units, keep=keep,
                                                       weights=weights, bias=bias), quantized=weights == "int8"))
    return found


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
    return s.op("FULLY_CONNECTED", [inp, wt, b], out, options=_options("FullyConnected", keepNumDims=keep))


def forms() -> list[Form]:
    """Every form of the grid, at both sets of sizes."""
    return [f for v in (0, 1) for f in (*_binary(v), *_unary(v), *_layout(v), *_reductions(v), *_strided(v),
                                         *_fully_connected(v))]


def chosen(grid: str) -> list[Form]:
    """The forms `--grid` names: "full", "sample" (one in SAMPLE_EVERY) or "none"."""
    every = forms() if grid != "none" else []
    return every if grid == "full" else every[::SAMPLE_EVERY]


def run(grid: list[Form], launch, log: Callable[[str], None] | None = None) -> list[Form]:
    """Run every form of `grid` in batches of BATCH on the accelerator `launch` starts."""
    with tempfile.TemporaryDirectory(prefix="gpucompat-grid-") as tmp:
        for i in range(0, len(grid), BATCH):
            _batch(grid[i:i + BATCH], os.path.join(tmp, "batch.tflite"), launch, log)
            if log:
                log(f"{min(i + BATCH, len(grid))} of {len(grid)} forms")
    return grid


def _batch(batch: list[Form], path: str, launch, log) -> None:
    """One model of every form in `batch`, run at both precisions; a batch the accelerator
    refuses is split until the refused form is alone, which is left out with why."""
    from gpucompat import ir
    from gpucompat.confirm.runner import NoDevice
    from gpucompat.errors import GpucompatError
    from gpucompat.rules.support.forms import form_of

    kept = [f for f in batch if f.refused is None]
    if not kept:
        return
    batch = kept
    with open(path, "wb") as fh:
        fh.write(_model(batch))
    graph = ir.load(path).graphs[0]
    for f, out in zip(batch, graph.outputs):
        f.key = form_of(out.producer)
    declined = _not_delegated(graph, batch)
    if declined:
        for f in declined:
            f.refused = "the litert-mldrift profile predicts the accelerator does not take it"
        _batch(batch, path, launch, log)
        return
    try:
        got, want = _outputs(path, batch, graph, launch)
    except NoDevice:
        raise
    except GpucompatError as e:
        if len(batch) == 1:
            batch[0].refused = str(e).replace(path, batch[0].name)
            if log:
                log(f"left out {batch[0].name}: {batch[0].refused}")
            return
        _batch(batch[:len(batch) // 2], path, launch, log)
        _batch(batch[len(batch) // 2:], path, launch, log)
        return
    for precision in NOISE:
        for f, g, w in zip(batch, got[precision], want):
            f.result[precision] = judge(g, w, precision)


def _model(batch: list[Form], exact: bool = False) -> bytes:
    """One model of every form of `batch`, each output in the batch's order (`exact`: int8
    weights written as the floats they stand for)."""
    s = Sketch()
    s.output(*(f.write(s, f"f{i}", exact) for i, f in enumerate(batch)))
    return s.to_bytes()


def _not_delegated(graph, batch: list[Form]) -> list[Form]:
    """The forms with an op the base profile says the accelerator does not take (left out before
    the run: a batch must be fully delegated)."""
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.judging import judge_graph
    from gpucompat.rules.support.profile import Options
    from gpucompat.rules.support.profile_file import BASE

    verdicts = judge_graph(graph, registry.get(BASE), Options(backend="webgpu")).verdicts
    refused = {id(op) for op, v in zip(graph.ops, verdicts) if not v.ok}
    return [f for f, out in zip(batch, graph.outputs) if refused & _writers(out)]


def _writers(t) -> set[int]:
    """The ops (their ids) that write `t` and what it is computed from."""
    op = t.producer
    return set() if op is None else {id(op)}.union(*(_writers(i) for i in op.present_inputs))


def _outputs(path: str, batch: list[Form], graph, launch) -> tuple[dict, list]:
    """The accelerator's outputs at each precision and the CPU interpreter's (int8 weights as the
    floats they stand for), on seeded inputs."""
    from gpucompat.runners.litert_gpu.infer import run_on_accelerator
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    gen = np.random.default_rng(0)
    draws = {f"f{i}": f.draw for i, f in enumerate(batch)}
    feeds = [_draw(draws[t.name.rsplit("__", 1)[0]], t.shape, gen) for t in graph.inputs]
    if any(f.quantized for f in batch):
        reference = _model(batch, exact=True)
    else:
        with open(path, "rb") as fh:
            reference = fh.read()
    want = run_reference(reference_interpreter(reference, path), feeds)
    inputs, outputs = [t.index for t in graph.inputs], [t.index for t in graph.outputs]
    got = {p: run_on_accelerator(path, [feeds], inputs, outputs, precision=p, launch=launch).outputs[0]
           for p in NOISE}
    return got, want


def _draw(draw: str, shape, gen: np.random.Generator) -> np.ndarray:
    if draw == "big":
        return gen.uniform(5.0, 7.0, shape).astype(np.float32)
    v = gen.standard_normal(shape).astype(np.float32)
    return (np.abs(v) + 0.5).astype(np.float32) if draw == "away" else v


def judge(got: np.ndarray, want: np.ndarray, precision: str) -> dict:
    """Cosine and max error (relative to the largest CPU output) of one output, and whether that
    is beyond the precision's noise."""
    g, w = np.asarray(got, np.float64).ravel(), np.asarray(want, np.float64).ravel()
    norm = float(np.linalg.norm(g) * np.linalg.norm(w))
    cosine = float(g @ w / norm) if norm else float(np.array_equal(g, w))
    error = max_abs_error(g, w) / (magnitude(w) or 1.0)  # verify's own measures: a NaN is an error
    min_cos, max_err = NOISE[precision]
    return {"cosine": round(cosine, 4), "max_error": float(f"{error:.3g}"),
            "wrong": cosine < min_cos or error > max_err}


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
            for precision, r in entry.items():
                seen = worst.get((form, precision))
                if r["cosine"] < NOISE[precision][0] and (seen is None or r["cosine"] < seen[1]["cosine"]):
                    worst[(form, precision)] = (op, r)
    out = {}
    for key, entry in table.items():
        op, form = key.split(" ", 1)
        out[key] = dict(entry)
        for precision, r in entry.items():
            shown = worst.get((form, precision)) if op in keys.BINARY and not r["wrong"] else None
            if shown:
                out[key][precision] = {**shown[1], "example": f"{shown[1]['example']}; the same form of {shown[0]} "
                                       f"(measured right for {op}: cosine {r['cosine']})"}
    return out


def record(which: str, grid: list[Form], seconds: float) -> dict:
    """A profile file's "grid": which grid ran, its forms, the ones left out and why, the time it
    took and the verdicts per form key (forms left out count nowhere)."""
    from gpucompat.rules.support.calibration import THRESHOLDS

    return {"run": which, "forms": len(grid), "seconds": round(seconds), "thresholds": THRESHOLDS,
            "left_out": {f.name: f.refused for f in grid if f.refused},
            "table": by_key([(f.name, f.key, f.result, f.name) for f in grid if f.result])}
