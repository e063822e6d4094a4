"""Hold out the law of forms: one-op models at sizes the numerics grid never used, measured on the
real LiteRT GPU accelerator (fp32, enforce_f32) and each checked alone with `check --profile
litert-mldrift`; prints how many wrong forms GPU005 flags and how many right forms it flags too
(the figures in docs/fidelity.md).

usage: python3 tools/holdout_forms.py [SEED]
The forms: 36 binary ops between a runtime tensor and a constant or a second runtime tensor,
ranks 0-4 with random broadcast patterns; unary chains, SOFTMAX, TRANSPOSE, CONCATENATION, MEAN
and SLICE at ranks 1-3; 40 FULLY_CONNECTED forms (random input shape of rank 1-4, keep_num_dims,
units, weights and bias) and 30 DIVs by a constant (random broadcast patterns), written op by op
as the grid (gpucompat/calibrate/grid.py) writes its own. Needs a Vulkan device (docs/fidelity.md,
"Set-up").
"""

from __future__ import annotations

import os
import random
import sys
import tempfile

import numpy as np

from gpucompat.calibrate import grid
from gpucompat.ir.build import Sketch
from gpucompat.rules.support import forms as keys

SIZES = ((6, 5, 3, 2), (12, 2, 7, 3), (5, 9, 2, 4))  # output sizes from the last axis: none of the grid's


def _const(shape, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(np.float32)


def _pattern(rnd: random.Random, lowest: int) -> str:
    return "".join(rnd.choice("nn1") for _ in range(rnd.randint(lowest, 4)))


def binary_forms(rnd: random.Random, count: int) -> list[grid.Form]:
    """`count` binary forms with random ops, ranks, broadcast patterns and operand kinds."""
    forms = []
    for i in range(count):
        op, sizes = rnd.choice(keys.BINARY), rnd.choice(SIZES)
        pa, pb = _pattern(rnd, 0), _pattern(rnd, 0)
        sa, sb = grid.shape_of(pa, sizes), grid.shape_of(pb, sizes)
        out, options = np.broadcast_shapes(sa, sb), grid.options_of(grid.OPTIONS.get(op))
        runtime = (pa == "") == (pb == "") and rnd.random() < 1 / 3  # a runtime scalar with a tensor is not taken
        name = f"h{i}_{op.lower()}_r{pa or 's'}_{'r' if runtime else 'c'}{pb or 's'}"
        if runtime:
            forms.append(grid.one_op(name, op, [sa, sb], [], out, options, "away" if op == "DIV" else "normal"))
        else:
            c = np.abs(_const(sb, 11)) + 0.5 if op == "DIV" else _const(sb, 11)
            forms.append(grid.one_op(name, op, [sa], [c], out, options))
    return forms


def chain(name: str, shape: tuple, steps: list[tuple]) -> grid.Form:
    """A form of one-operand ops in a row; a step is (op,) or (op, scalar constant operand)."""
    def write(s: Sketch, prefix: str, exact: bool = False):
        t = s.input(f"{prefix}__0", shape)
        for j, (op, *operand) in enumerate(steps):
            fixed = [s.const(f"{prefix}_c{j}", np.float32(operand[0]))] if operand else []
            t = s.op(op, [t, *fixed], shape, options=grid.options_of(grid.OPTIONS.get(op)))
        return t
    return grid.Form(name, write)


def other_forms() -> list[grid.Form]:
    """Unary chains, SOFTMAX, TRANSPOSE, CONCATENATION with a constant, MEAN and SLICE at ranks 1-3."""
    chains = [[("TANH",), ("EXP",)], [("RELU",), ("ADD", 1.0), ("SQRT",)], [("LOGISTIC",), ("NEG",)],
              [("ABS",), ("ADD", 0.5), ("LOG",)], [("SIN",), ("SQUARE",)], [("ELU",), ("COS",)]]
    forms = [chain(f"chain{j}", [(10,), (3, 10), (2, 5, 6)][j % 3], steps) for j, steps in enumerate(chains)]
    forms += [grid.one_op(f"softmax{j}", "SOFTMAX", [s], [], s, grid.options_of("Softmax", beta=1.0))
              for j, s in enumerate([(6,), (3, 6), (2, 3, 6), (1, 5, 6)])]
    forms += [grid.one_op(f"transpose{j}", "TRANSPOSE", [s], [np.asarray(p, np.int32)], tuple(s[i] for i in p))
              for j, (s, p) in enumerate([((6, 5), (1, 0)), ((2, 5, 6), (2, 1, 0)), ((2, 5, 6), (1, 0, 2)),
                                          ((3, 5, 6), (0, 2, 1))])]
    forms += [grid.one_op(f"concat{j}", "CONCATENATION", [s], [_const(s, 12)],
                          tuple(d * 2 if i == ax else d for i, d in enumerate(s)),
                          grid.options_of("Concatenation", axis=ax))
              for j, (s, ax) in enumerate([((6,), 0), ((3, 6), 1), ((2, 5, 6), 0), ((2, 5, 6), 2)])]
    forms += [grid.one_op(f"mean{j}", "MEAN", [s], [np.asarray(ax, np.int32)],
                          tuple(d for i, d in enumerate(s) if i not in ax), grid.options_of("Reducer"))
              for j, (s, ax) in enumerate([((3, 6), [1]), ((2, 5, 6), [1]), ((2, 5, 6), [0, 2])])]
    forms += [grid.one_op(f"slice{j}", "SLICE", [s], [np.asarray(b, np.int32), np.asarray(z, np.int32)], tuple(z))
              for j, (s, b, z) in enumerate([((10,), [2], [5]), ((3, 10), [0, 1], [2, 6]),
                                             ((2, 5, 6), [0, 1, 0], [2, 3, 6])])]
    return forms


def written_forms(rnd: random.Random, count: int) -> list[grid.Form]:
    """`count` FULLY_CONNECTED forms and `count` * 3 // 4 DIVs by a constant, random as above."""
    forms = [grid.fully_connected(f"hfc{i}", grid.shape_of(_pattern(rnd, 1), rnd.choice(SIZES)), rnd.choice((3, 1)),
                                  rnd.random() < 0.5, rnd.choice(grid.FC_WEIGHTS), rnd.random() < 0.5)
             for i in range(count)]
    for i in range(count * 3 // 4):
        sizes = rnd.choice(SIZES)
        sa, sb = (grid.shape_of(_pattern(rnd, 0), sizes) for _ in "ab")
        forms.append(grid.one_op(f"hdiv{i}", "DIV", [sa], [np.abs(_const(sb, 11)) + 0.5], np.broadcast_shapes(sa, sb),
                                 grid.options_of("Div")))
    return forms


def main(seed: int = 23) -> None:
    from gpucompat import api
    from gpucompat.confirm.runner import launcher

    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    rnd = random.Random(seed)
    forms = grid.run([*binary_forms(rnd, 36), *other_forms(), *written_forms(rnd, 40)], launcher())
    wrong = flagged = right = alarms = unmeasured = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in forms:
            if "fp32" not in f.result:
                print(f"left out {f.name}: {f.refused}")
                continue
            path = os.path.join(tmp, f"{f.name}.tflite")
            s = Sketch()
            s.output(f.write(s, "f"))
            with open(path, "wb") as fh:
                fh.write(s.to_bytes())
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
