"""The numerics calibration grid: op forms run on LiteRT's real GPU accelerator, at fp32 and at its
default precision (fp16), against the CPU interpreter on the same seeded inputs.

Many independent forms go into one model with one output each (one shader compilation per model
and precision, not one per form); each form has inputs of its own, so nothing is shared between
forms. Each form's verdict is filed under its key (rules/forms.py form_of, of the first op that
reads the form's inputs), and the verdicts are what rules/calibration/ records for the GPU005
rule. `tests/test_fidelity_numerics.py` re-runs the grid and fails when the accelerator and the
recorded data disagree; `python tests/numerics_grid.py` re-records the data.

Forms the accelerator does not delegate are left out (a batch must be delegated whole): PAD below
rank 3 ("Invalid paddings tensor"), MIRROR_PAD, a runtime rank-0 operand with a runtime operand of
higher rank ("bad input dims size: 0", which litert-mldrift does not predict: see docs/fidelity.md).
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from dataclasses import dataclass, field

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpucompat.verification.tolerance import magnitude, max_abs_error  # noqa: E402
from modelgen import const, tf  # noqa: E402

F, I32 = np.float32, np.int32
# A form's outputs are right when within this of the CPU's (cosine, max error / largest output).
NOISE = {"fp32": (0.9999, 1e-3), "fp16": (0.999, 1e-2)}
BATCH = 60  # forms per model
RANK_SHAPES = {0: [], 1: [16], 2: [8, 16], 3: [4, 8, 16], 4: [2, 4, 8, 16]}
BINARY_OPS = {
    "ADD": lambda t, a, b: a + b,
    "SUB": lambda t, a, b: a - b,
    "MUL": lambda t, a, b: a * b,
    "DIV": lambda t, a, b: a / b,
    "MAXIMUM": lambda t, a, b: t.maximum(a, b),
    "MINIMUM": lambda t, a, b: t.minimum(a, b),
}


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
    retype: str | None = None  # the op the converter wrote for it becomes this one (EMBEDDING_LOOKUP)
    key: str | None = None  # filled from the converted model
    result: dict = field(default_factory=dict)  # precision -> {"cosine", "max_error", "wrong"}


def _binary_forms() -> list[Form]:
    forms = []
    for op, f in BINARY_OPS.items():
        low = op.lower()
        draw = "away" if op == "DIV" else "normal"
        c = functools.partial(_operand, op=op)
        for ra, rb in itertools.product(range(5), range(5)):
            sa, sb = RANK_SHAPES[ra], RANK_SHAPES[rb]
            forms.append(Form(f"{low}_r{ra}_c{rb}", lambda t, a, sb=sb, f=f, c=c: f(t, a, c(sb)), [(sa, F)]))
            if (ra == 0) == (rb == 0):  # a runtime scalar with a runtime tensor is not delegated
                forms.append(Form(f"{low}_r{ra}_r{rb}", lambda t, a, b, f=f: f(t, a, b), [(sa, F), (sb, F)], draw))
        for r in (2, 3, 4):
            channel, inner = [1] * (r - 1) + [16], RANK_SHAPES[r][:-1] + [1]
            forms.append(
                Form(f"{low}_r{r}_c{r}ch", lambda t, a, s=channel, f=f, c=c: f(t, a, c(s)), [(RANK_SHAPES[r], F)])
            )
            forms.append(
                Form(f"{low}_r{r}_c{r}in", lambda t, a, s=inner, f=f, c=c: f(t, a, c(s)), [(RANK_SHAPES[r], F)])
            )
            forms.append(
                Form(f"{low}_r{r}_r{r}ch", lambda t, a, b, f=f: f(t, a, b), [(RANK_SHAPES[r], F), (channel, F)], draw)
            )
        for shape, other in (
            ([1, 8, 16], [1, 8, 16]),
            ([1, 8, 16], [1, 8, 1]),
            ([1, 16], [1, 16]),
            ([1, 8, 16], [1, 1, 8, 16]),
            ([1, 8], [8, 8]),
            ([1, 1, 1, 1], [1, 1, 1, 4]),
            ([1, 1, 1, 1], [2, 4, 8, 16]),
            ([1, 1, 1, 16], [1, 1, 8, 16]),
            ([1, 1, 1, 1], [1, 1, 64, 1]),
            ([1, 1, 1, 1], [1, 4, 8, 16]),
            ([1, 1, 1, 1], [1, 1, 1, 4096]),
            ([1, 1, 1, 16], [1, 1, 512, 16]),
            ([1, 1, 8, 16], [1, 4, 8, 16]),
        ):
            forms.append(
                Form(
                    f"{low}_lead1_{'x'.join(map(str, shape))}_c{'x'.join(map(str, other))}",
                    lambda t, a, s=other, f=f, c=c: f(t, a, c(s)),
                    [(shape, F)],
                )
            )
        if op in ("SUB", "DIV"):  # the constant first
            for r in range(1, 5):
                forms.append(
                    Form(
                        f"{low}_c{r}_r{r}",
                        lambda t, a, s=RANK_SHAPES[r], f=f: f(t, const(s, 4) + 4.0, a),
                        [(RANK_SHAPES[r], F)],
                        "away",
                    )
                )
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
    ]


def _movement_forms() -> list[Form]:
    shapes = {1: [16], 2: [6, 16], 3: [4, 6, 16], 4: [3, 4, 6, 16]}
    forms = []
    for r, shape in shapes.items():
        n = int(np.prod(shape))
        for ax in range(r):
            pads = [[0, 0] for _ in range(r)]
            pads[ax] = [1, 2]
            if r >= 3:
                forms.append(Form(f"pad_r{r}_a{ax}", lambda t, a, p=pads: t.pad(a, p), [(shape, F)]))
                forms.append(
                    Form(f"padv2_r{r}_a{ax}", lambda t, a, p=pads: t.pad(a, p, constant_values=1.5), [(shape, F)])
                )
            begin, size = [0] * r, list(shape)
            begin[ax], size[ax] = 1, shape[ax] - 2
            forms.append(Form(f"slice_r{r}_a{ax}", lambda t, a, b=begin, s=size: t.slice(a, b, s), [(shape, F)]))
            forms.append(
                Form(
                    f"sslice_r{r}_a{ax}",
                    lambda t, a, ax=ax: a[(slice(None),) * ax + (slice(1, None, 2),)],
                    [(shape, F)],
                )
            )
            forms.append(
                Form(f"concat_r{r}_a{ax}", lambda t, a, b, ax=ax: t.concat([a, b], ax), [(shape, F), (shape, F)])
            )
            forms.append(
                Form(f"concatc_r{r}_a{ax}", lambda t, a, ax=ax, s=shape: t.concat([a, const(s, 5)], ax), [(shape, F)])
            )
        if r == 3:
            pads = [[0, 0], [1, 2], [2, 1]]
            forms.append(Form("pad_r3_a12", lambda t, a, p=pads: t.pad(a, p), [(shape, F)]))
        for perm in itertools.permutations(range(r)):
            if list(perm) != list(range(r)):
                forms.append(
                    Form(
                        f"transpose_r{r}_p{''.join(map(str, perm))}",
                        lambda t, a, p=perm: t.transpose(a, p),
                        [(shape, F)],
                    )
                )
        for target in ([n], [n // 16, 16], [1, n // 16, 16], [1, 1, n // 16, 16], [16, n // 16]):
            if target != shape:
                forms.append(
                    Form(
                        f"reshape_r{r}_to{'x'.join(map(str, target))}",
                        lambda t, a, s=target: t.reshape(a, s) * 2.0,
                        [(shape, F)],
                    )
                )
    return forms


def _reduction_forms() -> list[Form]:
    big = [1, 112, 112, 32]
    return [
        Form("sum_long_big", lambda t, a: t.reduce_sum(a, axis=[1, 2]), [(big, F)], "big"),
        Form("mean_long_big", lambda t, a: t.reduce_mean(a, axis=[1, 2]), [(big, F)], "big"),
        Form("max_long_big", lambda t, a: t.reduce_max(a, axis=[1, 2]), [(big, F)], "big"),
        Form("sum_short", lambda t, a: t.reduce_sum(a, axis=[3]), [([1, 8, 8, 32], F)]),
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
            "EMBEDDING_LOOKUP",
        )
        for rows, cols in ((32, 16), (1000, 64))
    ]


def _batch_slice_forms() -> list[Form]:
    """What split-batch makes of a binary op broadcasting [16] across a constant [2, 4, 8, 16]: the
    runtime operand at rank 4 against one batch slice of the constant. (Last in the grid, so that
    adding them left every earlier batch, and its recorded numbers, as it was.)"""
    return [Form(f"{op.lower()}_lead1_1x1x1x16_c1x4x8x16",
                 lambda t, a, f=f, op=op: f(t, a, _operand([1, 4, 8, 16], op)), [([1, 1, 1, 16], F)])
            for op, f in BINARY_OPS.items()]


def _operand(shape, op: str) -> np.ndarray:
    """A binary op's constant operand: away from 0 for DIV."""
    v = const(shape, 3)
    return np.abs(v) + 0.5 if op == "DIV" else v


def forms() -> list[Form]:
    """Every form of the grid, in batches' order."""
    return [*_binary_forms(), *_table_forms(), *_movement_forms(), *_reduction_forms(), *_lookup_forms(),
            *_batch_slice_forms()]


def convert(batch: list[Form]) -> bytes:
    """One model computing every form of `batch`, input names `<form>__<j>`."""
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


def _retyped(data: bytes, batch: list[Form]) -> bytes:
    """The converted model with each `retype` form's GATHER turned into that op, reading (ids, table)."""
    from gpucompat import ir
    from gpucompat.ir import build

    wanted = {f.name: f.retype for f in batch if f.retype}
    if not wanted:
        return data
    model = ir.from_bytes(data)
    graph = model.graphs[0]
    for t in graph.inputs:
        if _form_name(t) in wanted:
            (op,) = [o for o in t.consumers if o.name == "GATHER"]
            build.retype(op, wanted[_form_name(t)])
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


def run_batch(batch: list[Form], path: str, seed: int = 0) -> None:
    """Convert, run on the CPU and on the accelerator at both precisions, fill each form's key
    and result."""
    from gpucompat import ir
    from gpucompat.confirm.infer import run_on_accelerator
    from gpucompat.rules.forms import form_of
    from gpucompat.verification.interpreter import reference_interpreter, run_reference

    data = _retyped(convert(batch), batch)
    with open(path, "wb") as fh:
        fh.write(data)
    graph = ir.from_bytes(data, path).graphs[0]
    by_name = {f.name: f for f in batch}
    gen = np.random.default_rng(seed)
    feeds = [
        _draw(by_name[_form_name(t)], t.shape, np.dtype(F if t.dtype_name == "FLOAT32" else I32), gen)
        for t in graph.inputs
    ]
    for t in graph.inputs:
        form = by_name[_form_name(t)]
        if form.key is None:
            form.key = next((k for k in map(form_of, t.consumers) if k), None)
    owner = [_owner(t, by_name) for t in graph.outputs]
    ref = run_reference(reference_interpreter(data, path), feeds)
    for precision in NOISE:
        got = run_on_accelerator(
            path, [feeds], [t.index for t in graph.inputs], [t.index for t in graph.outputs], precision=precision
        ).outputs[0]
        for f, g, r in zip(owner, got, ref):
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


def judge(got: np.ndarray, want: np.ndarray, precision: str) -> dict:
    """Cosine and max error (relative to the largest CPU output) of one output, and whether that
    is beyond the precision's noise."""
    g, w = np.asarray(got, np.float64).ravel(), np.asarray(want, np.float64).ravel()
    norm = float(np.linalg.norm(g) * np.linalg.norm(w))
    cosine = float(g @ w / norm) if norm else float(np.array_equal(g, w))
    error = max_abs_error(g, w) / (magnitude(w) or 1.0)  # verify's own measures: a NaN is an error
    min_cos, max_err = NOISE[precision]
    return {
        "cosine": round(cosine, 4),
        "max_error": float(f"{error:.3g}"),
        "wrong": cosine < min_cos or error > max_err,
    }


def run_grid(directory: str, seed: int = 0) -> list[Form]:
    """Every form, run in batches of BATCH (models written into `directory`)."""
    grid = forms()
    for i in range(0, len(grid), BATCH):
        run_batch(grid[i : i + BATCH], os.path.join(directory, f"numerics_grid_{i // BATCH}.tflite"), seed)
    return grid


def by_key(grid: list[Form]) -> dict[str, dict]:
    """The grid's verdicts per form key: wrong at a precision when any form of the key is, with
    the worst form as the evidence."""
    out: dict[str, dict] = {}
    for f in sorted(grid, key=lambda f: f.name):
        if f.key is None:
            continue
        entry = out.setdefault(f.key, {})
        for precision, r in f.result.items():
            worst = entry.get(precision)
            if worst is None or (r["wrong"], -r["cosine"]) > (worst["wrong"], -worst["cosine"]):
                entry[precision] = {**r, "example": _example(f)}
    return dict(sorted(out.items()))


def _example(f: Form) -> str:
    return f"{f.name}: inputs {' and '.join(str(list(s)) for s, _ in f.inputs)}"


if __name__ == "__main__":
    import tempfile

    from gpucompat.confirm.runner import launcher
    from gpucompat.rules import calibration

    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    with tempfile.TemporaryDirectory() as tmp:
        grid = run_grid(tmp)
    calibration.write(by_key(grid), launcher().driver)
    print(
        f"{len(grid)} forms, {sum(1 for v in by_key(grid).values() if any(p['wrong'] for p in v.values()))} "
        f"wrong form keys -> {calibration.PATH}"
    )
