"""Hold out the law of forms: one-op models at sizes the numerics grid never used, measured on the
real LiteRT GPU accelerator (fp32, enforce_f32) and each checked alone with `check --profile
litert-mldrift`; prints how many wrong forms GPU005 flags and how many right forms it flags too
(the figures in docs/fidelity.md).

usage: python3 tools/holdout_forms.py [SEED]
The forms: 36 binary ops between a runtime tensor and a constant or a second runtime tensor,
ranks 0-4 with random broadcast patterns; unary chains, SOFTMAX, TRANSPOSE, CONCATENATION, MEAN
and SLICE at ranks 1-3; 40 FULLY_CONNECTED forms (random input shape of rank 1-4, keep_num_dims,
units, weights and bias) and 30 DIVs by a constant (random broadcast patterns), written op by op
as the grid writes them. Needs a Vulkan device (docs/fidelity.md, "Set-up").
"""

from __future__ import annotations

import functools
import os
import random
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import numerics_grid as grid  # noqa: E402
from modelgen import const  # noqa: E402

F = np.float32
SIZES = ((6, 5, 3, 2), (12, 2, 7, 3), (5, 9, 2, 4))  # output sizes from the last axis: none of the grid's


def binary_forms(rnd: random.Random, count: int) -> list[grid.Form]:
    """`count` binary forms with random ops, ranks, broadcast patterns and operand kinds."""
    forms = []
    for i in range(count):
        op = rnd.choice(list(grid.BINARY_OPS))
        f, sizes = grid.BINARY_OPS[op], rnd.choice(SIZES)
        pa, pb = ("".join(rnd.choice("nn1") for _ in range(rnd.randint(0, 4))) for _ in range(2))
        sa, sb = grid.shape_of(pa, sizes), grid.shape_of(pb, sizes)
        runtime = (pa == "") == (pb == "") and rnd.random() < 1 / 3  # a runtime scalar with a tensor is not taken
        name = f"h{i}_{op.lower()}_r{pa or 's'}_{'r' if runtime else 'c'}{pb or 's'}"
        if runtime:
            forms.append(grid.Form(name, lambda t, a, b, f=f: f(t, a, b), [(sa, F), (sb, F)],
                                   "away" if op == "DIV" else "normal"))
        else:
            c = np.abs(const(sb, 11)) + 0.5 if op == "DIV" else const(sb, 11)
            forms.append(grid.Form(name, lambda t, a, c=c, f=f: f(t, a, c), [(sa, F)]))
    return forms


def other_forms() -> list[grid.Form]:
    """Unary chains, SOFTMAX, TRANSPOSE, CONCATENATION with a constant, MEAN and SLICE at ranks 1-3."""
    chains = [lambda t, a: t.exp(t.tanh(a)), lambda t, a: t.sqrt(t.nn.relu(a) + 1.0), lambda t, a: -t.sigmoid(a),
              lambda t, a: t.math.log(t.abs(a) + 0.5), lambda t, a: t.square(t.sin(a)), lambda t, a: t.cos(t.nn.elu(a))]
    forms = [grid.Form(f"chain{j}", fn, [([[10], [3, 10], [2, 5, 6]][j % 3], F)]) for j, fn in enumerate(chains)]
    forms += [grid.Form(f"softmax{j}", lambda t, a: t.nn.softmax(a), [(s, F)])
              for j, s in enumerate([[6], [3, 6], [2, 3, 6], [1, 5, 6]])]
    forms += [grid.Form(f"transpose{j}", lambda t, a, p=p: t.transpose(a, p), [(s, F)])
              for j, (s, p) in enumerate([([6, 5], [1, 0]), ([2, 5, 6], [2, 1, 0]), ([2, 5, 6], [1, 0, 2]),
                                          ([3, 5, 6], [0, 2, 1])])]
    forms += [grid.Form(f"concat{j}", lambda t, a, ax=ax, s=s: t.concat([a, const(s, 12)], ax), [(s, F)])
              for j, (s, ax) in enumerate([([6], 0), ([3, 6], 1), ([2, 5, 6], 0), ([2, 5, 6], 2)])]
    forms += [grid.Form(f"mean{j}", lambda t, a, ax=ax: t.reduce_mean(a, axis=ax), [(s, F)])
              for j, (s, ax) in enumerate([([3, 6], [1]), ([2, 5, 6], [1]), ([2, 5, 6], [0, 2])])]
    forms += [grid.Form(f"slice{j}", lambda t, a, b=b, z=z: t.slice(a, b, z), [(s, F)])
              for j, (s, b, z) in enumerate([([10], [2], [5]), ([3, 10], [0, 1], [2, 6]),
                                             ([2, 5, 6], [0, 1, 0], [2, 3, 6])])]
    return forms


def written_forms(rnd: random.Random, count: int) -> list[grid.Form]:
    """`count` FULLY_CONNECTED forms and `count` * 3 // 4 DIVs by a constant, random as above."""
    from ai_edge_litert import schema_py_generated as fb

    forms = []
    for i in range(count):
        x = grid.shape_of("".join(rnd.choice("nn1") for _ in range(rnd.randint(1, 4))), rnd.choice(SIZES))
        weights = rnd.choice(grid.FC_WEIGHTS)
        fc = functools.partial(grid._fully_connected, x=x, units=rnd.choice((3, 1)), keep=rnd.random() < 0.5,
                               weights=weights, bias=rnd.random() < 0.5)
        forms.append(grid.Form(f"hfc{i}", fc, [(x, F), ([fc.keywords["units"], x[-1]], F)] if weights == "runtime"
                               else [(x, F)], written=True))
    for i in range(count * 3 // 4):
        sizes = rnd.choice(SIZES)
        sa, sb = (grid.shape_of("".join(rnd.choice("nn1") for _ in range(rnd.randint(0, 4))), sizes) for _ in "ab")
        out = list(np.broadcast_shapes(tuple(sa), tuple(sb)))
        forms.append(grid.Form(f"hdiv{i}", lambda m, ins, exact, s=sb, o=out: m.op(
            "DIV", [ins[0], m.const("c", np.abs(const(s, 11)) + 0.5)], o, options=fb.DivOptionsT()), [(sa, F)],
            written=True))
    return forms


def main(seed: int = 23) -> None:
    from gpucompat import api

    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    rnd = random.Random(seed)
    forms = [*binary_forms(rnd, 36), *other_forms(), *written_forms(rnd, 40)]
    wrong = flagged = right = alarms = unmeasured = 0
    with tempfile.TemporaryDirectory() as tmp:
        grid.run_grid(tmp, forms, seed)
        for f in forms:
            if "fp32" not in f.result:
                print(f"left out {f.name}: {f.refused}")
                continue
            path = os.path.join(tmp, f"{f.name}.tflite")
            with open(path, "wb") as fh:
                fh.write(grid.convert([f]))
            codes = {x["code"] for x in api.check(path, profile="litert-mldrift")["findings"]}
            is_wrong, is_flagged = f.result["fp32"]["wrong"], "GPU005" in codes
            wrong, flagged = wrong + is_wrong, flagged + (is_wrong and is_flagged)
            right, alarms = right + (not is_wrong), alarms + (not is_wrong and is_flagged)
            unmeasured += "GPU007" in codes
            if is_wrong != is_flagged or "GPU007" in codes:
                said = sorted(codes & {"GPU005", "GPU007"}) or "silent"
                print(f"{f.name} [{f.key}]: accelerator {'wrong' if is_wrong else 'right'} "
                      f"(cosine {f.result['fp32']['cosine']}), check {said}")
    print(f"{wrong} wrong forms, {flagged} flagged; {right} right forms, {alarms} flagged; "
          f"{unmeasured} reported unmeasured")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
