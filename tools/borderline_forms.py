"""Measure again the form keys recorded right on evidence near the threshold: a key whose recorded
error is within a factor of 3 of its precision's threshold (max error between a third of the
threshold and the threshold, or a cosine between the threshold and a third of the way back to 1)
may be wrong at sizes the grid never used. Each such key is rebuilt from its recorded example at
SIZE_SETS (sizes the grid never used), each set drawn with a seed of its own, run on the real
LiteRT GPU accelerator at fp32 and fp16, and a key wrong at any of them is recorded wrong with
that form as its evidence (the table's rule: the worst form of a key is its evidence). Only the
lines of the keys that turn wrong change in rules/support/calibration/litert_gpu.json.

usage: python3 tools/borderline_forms.py [--dry-run] [SEED]
Needs a Vulkan device (docs/fidelity.md, "Set-up").
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import numerics_grid as grid  # noqa: E402

TABLE = os.path.join(ROOT, "rules", "support", "calibration", "litert_gpu.json")
NEAR = 3  # how close to the threshold, as a factor, evidence must be to be measured again
# sizes of the axes from the last (for FULLY_CONNECTED the last is the input features): none of the grid's
SIZE_SETS = ((5, 2, 3, 4), (12, 6, 2, 3), (16, 3, 4, 2), (3, 9, 5, 2), (24, 4, 2, 6), (10, 7, 3, 3))
WEIGHT_TAGS = {w[0] + w[-1]: w for w in grid.FC_WEIGHTS}  # the grid's form names: "re" is runtime
FC_NAME = re.compile(r"fc_([n1]+)(k?)u(\d+)(f2|re|f6|i8)(b?)_")
BINARY_NAME = re.compile(r"([a-z_]+)_r([n1]*)_c([n1]*)_\d+$")


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


def rebuilt(key: str, example: str, sizes: tuple[int, ...], tag: str) -> grid.Form | None:
    """The form of `key` its recorded `example` names, at `sizes`; None for a form of another kind."""
    name = example.split(":")[0].split(";")[0]
    if m := FC_NAME.match(name):
        pattern, keep, units, weights, bias = m.groups()
        x = grid.shape_of(pattern, sizes)
        units = 1 if units == "1" else sizes[1]
        fc = functools.partial(grid._fully_connected, x=x, units=units, keep=keep == "k",
                               weights=WEIGHT_TAGS[weights], bias=bias == "b")
        return grid.Form(f"{name}{tag}", fc, [(x, grid.F), ([units, x[-1]], grid.F)] if weights == "re"
                         else [(x, grid.F)], written=True, key=key)
    if (m := BINARY_NAME.match(name)) and m.group(1).upper() in grid.BINARY_OPS:
        op, pa, pb = m.groups()
        f, c = grid.BINARY_OPS[op.upper()], grid._operand(grid.shape_of(pb, sizes), op.upper())
        return grid.Form(f"{name}{tag}", lambda t, a, f=f, c=c: f(t, a, c), [(grid.shape_of(pa, sizes), grid.F)],
                         key=key)
    return None


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
    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    with open(TABLE) as fh:
        recorded = json.load(fh)["forms"]
    near = near_threshold(recorded)
    print(f"{len(near)} keys recorded right near the threshold:")
    for key, precisions in near.items():
        print(f"  {key} ({', '.join(precisions)})")
    worst: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, sizes in enumerate(SIZE_SETS):
            forms = [rebuilt(k, recorded[k][ps[0]]["example"], sizes, f"_b{i}") for k, ps in near.items()]
            target = {f.name: f.key for f in forms if f is not None}
            for f in grid.run_grid(tmp, [f for f in forms if f is not None], seed + i):
                if f.refused or f.key != target[f.name]:
                    print(f"left out {f.name}: {f.refused or f'its key is {f.key!r}, not {target[f.name]!r}'}")
                    continue
                for precision, r in f.result.items():
                    if worse(worst.setdefault(f.key, {}).get(precision), r):
                        worst[f.key][precision] = {**r, "example": f"{grid._example(f)} (seed {seed + i})"}
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
