"""Measure again the form keys recorded right on evidence near the threshold: a key whose recorded
error is within a factor of 3 of its threshold (max error between a third of the threshold and the
threshold, or a cosine between the threshold and a third of the way back to 1) may be wrong at
sizes the grid never used. Each such key is rebuilt from its recorded example at SIZE_SETS (sizes
the grid never used) as the package's grid writes its forms (gpucompat/calibrate/grid.py), and run
on the real LiteRT GPU accelerator at fp32 and fp16, each set in a batch of its own in an order a
seed shuffles (a form's drawn values depend on its place in the batch). A key wrong at any of them
is recorded wrong with that form as its evidence (the table's rule: the worst form of a key is its
evidence); only the lines of the keys that turn wrong change in
rules/support/calibration/litert_gpu.json.

usage: python3 tools/borderline_forms.py [--dry-run] [SEED]
Needs a Vulkan device (docs/fidelity.md, "Set-up").
"""

from __future__ import annotations

import json
import os
import random
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpucompat.calibrate import grid  # noqa: E402
from gpucompat.rules.support.forms import BINARY  # noqa: E402

TABLE = os.path.join(ROOT, "rules", "support", "calibration", "litert_gpu.json")
NEAR = 3  # how close to the threshold, as a factor, evidence must be to be measured again
# sizes of the axes from the last (for FULLY_CONNECTED the last is the input features): none of the grid's
SIZE_SETS = ((5, 2, 3, 4), (12, 6, 2, 3), (16, 3, 4, 2), (3, 9, 5, 2), (24, 4, 2, 6), (10, 7, 3, 3))
WEIGHT_TAGS = {w[0] + w[-1]: w for w in grid.FC_WEIGHTS}  # the grid's form names: "re" is runtime
FC_NAME = re.compile(r"fc_([n1]+)(k?)u(\d+)(f2|re|f6|i8)(b?)_", re.IGNORECASE)
BINARY_NAME = re.compile(r"([a-z_]+)_r([n1]*)_c([n1]*)_\d+$", re.IGNORECASE)


def near_threshold(forms: dict[str, dict]) -> dict[str, list[str]]:
    """The keys recorded right at a precision on evidence within NEAR of that precision's threshold,
    with those precisions."""
    out: dict[str, list[str]] = {}
    for key, entry in forms.items():
        for precision, (min_cos, max_err) in grid.NOISE.items():
            r = entry.get(precision)
            if r and not r["wrong"] and (max_err / NEAR < r["max_error"] <= max_err
                                         or min_cos <= r["cosine"] < 1 - (1 - min_cos) / NEAR):
                out.setdefault(key, []).append(precision)
    return out


def rebuilt(example: str, sizes: tuple[int, ...], tag: str) -> tuple[grid.Form, str] | None:
    """The form the recorded `example` names, at `sizes`, with its own example (its name and its
    inputs' shapes); None for a form of another kind."""
    name = example.split(":")[0].split(";")[0]
    if m := FC_NAME.match(name):
        pattern, keep, units, weights, bias = m.groups()
        x, units = _shape(pattern, sizes), 1 if units == "1" else sizes[1]
        shapes = [x, (units, x[-1])] if weights == "re" else [x]
        form = grid.fully_connected(f"{name}{tag}", x, units, keep == "k", WEIGHT_TAGS[weights], bias == "b")
    elif (m := BINARY_NAME.match(name)) and m.group(1).upper() in BINARY:
        op, pa, pb = m.group(1).upper(), m.group(2), m.group(3)
        shapes, c = [_shape(pa, sizes)], grid._const(_shape(pb, sizes), 3, op == "DIV")
        out = tuple(int(d) for d in np.broadcast_shapes(shapes[0], c.shape))

        def write(s, prefix: str, exact: bool = False, op=op, x=shapes[0], c=c, out=out):
            return s.op(op, [s.input(f"{prefix}__0", x), s.const(f"{prefix}_c0", c)], out, options=_options(op))
        form = grid.Form(f"{name}{tag}", write, "away" if op == "DIV" else "normal")
    else:
        return None
    return form, f"{form.name}: inputs {' and '.join(str(list(x)) for x in shapes)}"


def _options(op: str):
    """A binary op's builtin options as the grid writes them (None for an op without)."""
    from ai_edge_litert import schema_py_generated as fb

    return getattr(fb, f"{grid.OPTIONS[op]}OptionsT")() if op in grid.OPTIONS else None


def _shape(pattern: str, sizes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sizes[len(pattern) - 1 - i] if c == "n" else 1 for i, c in enumerate(pattern))


def worse(seen: dict | None, r: dict) -> bool:
    """Whether result `r` is worse evidence than `seen`: wrong before right, then the lower cosine,
    then the larger max error."""
    return seen is None or (r["wrong"], -r["cosine"], r["max_error"]) > (seen["wrong"], -seen["cosine"],
                                                                        seen["max_error"])


def rewrite_lines(path: str, entries: dict[str, dict]) -> None:
    """Replace the lines of `entries`' keys in the table at `path`, in place and atomically, leaving
    every other line as it is (the table is written one key a line)."""
    with open(path) as fh:
        lines = fh.read().split("\n")
    heads = {f"  {json.dumps(k)}: ": k for k in entries}
    for i, line in enumerate(lines):
        head = line[: line.index(": ") + 2] if line.startswith('  "') and ": " in line else None
        if head in heads:
            k = heads.pop(head)
            lines[i] = head + json.dumps(entries[k], separators=(",", ":")) + ("," if line.endswith(",") else "")
    if heads:
        raise KeyError(f"not in {path}: {sorted(heads.values())}")
    with open(path + ".tmp", "w") as fh:
        fh.write("\n".join(lines))
    os.replace(path + ".tmp", path)


def main(seed: int = 1, dry_run: bool = False) -> None:
    from gpucompat.confirm.runner import launcher

    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    with open(TABLE) as fh:
        recorded = json.load(fh)["forms"]
    near = near_threshold(recorded)
    print(f"{len(near)} keys recorded right near the threshold:")
    for key, precisions in near.items():
        print(f"  {key} ({', '.join(precisions)})")
    worst: dict[str, dict[str, dict]] = {}
    launch = launcher()
    for i, sizes in enumerate(SIZE_SETS):
        built = {k: rebuilt(recorded[k][ps[0]]["example"], sizes, f"_b{i}") for k, ps in near.items()}
        forms = [(k, *b) for k, b in built.items() if b is not None]
        random.Random(seed + i).shuffle(forms)
        grid.run([f for _, f, _ in forms], launch)
        for key, f, example in forms:
            if f.refused or f.key != key:
                print(f"left out {f.name}: {f.refused or f'its key is {f.key!r}, not {key!r}'}")
                continue
            for precision, r in f.result.items():
                if worse(worst.setdefault(key, {}).get(precision), r):
                    worst[key][precision] = {**r, "example": f"{example} (order seed {seed + i})"}
    changed = {}
    for key, entry in worst.items():
        print(f"{key}: " + "; ".join(f"{p} worst cosine {r['cosine']} max error {r['max_error']} "
                                     f"({'wrong' if r['wrong'] else 'right'}, {r['example']})"
                                     for p, r in entry.items()))
        wrong = {p: r for p, r in entry.items() if r["wrong"] and not recorded[key][p]["wrong"]}
        if wrong:
            changed[key] = {**recorded[key], **wrong}
    print(f"{len(worst)} keys measured again, {len(changed)} now wrong: {sorted(changed)}")
    if changed and not dry_run:
        rewrite_lines(TABLE, changed)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(int(a) for a in args if a != "--dry-run"), dry_run="--dry-run" in args)
