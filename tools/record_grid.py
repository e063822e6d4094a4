"""Record the shipped calibration table (rules/support/calibration/litert_gpu.json) with the
numerics grid of `gpucompat calibrate` (gpucompat/calibrate/grid.py) on LiteRT's real GPU
accelerator (docs/fidelity.md, "Set-up").

usage: python3 tools/record_grid.py [--without-f16 DIR | --delegate gl] [GROUP...]
       python3 tools/record_grid.py [--delegate gl] --cut MODEL...
Without groups: every form of the grid (about 34,000; an hour on two shared cores), the table
recorded anew. With groups (grid.groups(): first-sizes, second-sizes, hand-picked, unsliced,
mirror-pad, int8-fc, op-types, provenance, int8-ops, cut): those alone, their keys added to the
recorded table, which keeps every other key (a key already recorded turns wrong, or takes worse
evidence, when a form of the group measures so). Resumable: the forms run so far are kept in
~/.cache/gpucompat-grid/ (one progress file per set of groups), and the table is written after
each batch.

`--cut MODEL...` adds to the grid's group "cut" the forms cut from real models
(gpucompat/calibrate/grid_cut.py: each delegated op whose key the table lacks, written alone as
the model holds it; kept in rules/support/calibration/cut_forms.tflite); record them with the
group "cut" after. With `--delegate gl` first, the forms the GL delegate's table lacks (every op it
takes at partitioning, whatever its build then does) go to the group "cut-gl"
(cut_forms_gl.tflite), recorded with `--delegate gl cut-gl`.

`--without-f16 DIR` runs the groups on the Vulkan driver DIR/env.sh names, an adapter without
16-bit shader floats (SwiftShader: tools/swiftshader.sh DIR sets it up), and records each key's
verdicts there beside the recorded ones ("without_f16"), for the keys the table already holds:
a form wrong on one kind of adapter only is then reported with the kind (docs/fidelity.md).

`--delegate gl` runs the groups on the classic GL delegate (gpucompat/confirm/gl_runner.py, set up
in $GPUCOMPAT_GL_DIR) and records rules/support/calibration/gl_delegate.json, the gl-delegate
profile's table: each key's verdicts at fp32 and fp16 (precision loss allowed), or, for a key no
form of which ran, "build" with the delegate's words when a form alone fails to build and
"untaken" when the delegate leaves it on the CPU.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from functools import partial

PROGRESS = os.path.expanduser("~/.cache/gpucompat-grid/progress.json")


def record(only: list[str], without_f16: str | None = None, gl: bool = False) -> None:
    """Run every form of the groups `only` (all when empty) not yet in the progress file, a batch
    at a time, and write the table after each batch (`without_f16`: the set-up directory of an
    adapter without fp16 shaders, whose verdicts go beside the recorded ones; `gl`: on the classic
    GL delegate, into its own table)."""
    os.environ.setdefault("GPUCOMPAT_VULKAN_DIR", os.path.expanduser("~/.cache/gpucompat-oracle"))
    from gpucompat.calibrate import grid
    from gpucompat.confirm.gl_runner import gl_launcher
    from gpucompat.confirm.runner import launcher
    from gpucompat.rules.support import calibration

    groups = grid.groups()
    unknown = sorted(set(only) - set(groups))
    if unknown:
        sys.exit(f"record_grid.py: no group {unknown[0]!r}; the groups: {', '.join(groups)}")
    progress = PROGRESS.replace(".json", "-" + re.sub(r"\W+", "-", "+".join(only)) + ".json") if only else PROGRESS
    if without_f16 or gl:
        progress = progress.replace(".json", "-without-f16.json" if without_f16 else "-gl.json")
    table_name = calibration.GL if gl else calibration.ACCELERATOR
    recorded = calibration.load(table_name)["forms"] if only or without_f16 else None
    done = _read(progress)
    launch = gl_launcher() if gl else launcher(without_f16)
    write_table = partial(_record_beside, recorded=recorded) if without_f16 else partial(
        _record_table, recorded=recorded, driver=launch.driver, table_name=table_name)

    def log(msg: str) -> None:
        print(time.strftime("%H:%M:%S"), msg, flush=True)

    for name, forms in groups.items():
        if only and name not in only:
            continue
        todo = [f for f in forms if f.name not in done]
        log(f"{name}: {len(forms)} forms, {len(todo)} to run")
        for i in range(0, len(todo), grid.BATCH):
            batch = grid.run(todo[i:i + grid.BATCH], launch, log)
            done.update({f.name: {"key": f.key, "example": f.example, "result": f.result, "refused": f.refused,
                                   "build": f.build} for f in batch})
            _write(progress, done)
            table = write_table(done)
            log(f"{name}: {i + len(batch)}/{len(todo)}; {len(done)} forms, {len(table)} keys, "
                f"{sum(1 for v in table.values() if v.get('fp32', {}).get('wrong'))} wrong at fp32")
    write_table(done)  # a finished run resumed records its table again


UNTAKEN = "the GL delegate took 0 of"  # a form the GL delegate left on the CPU (gl_runner.run_whole)


def _record_table(done: dict, recorded: dict | None, driver: str, table_name: str) -> dict:
    """Write the verdicts per key of the forms run so far (the progress file's contents) into the
    shipped table `table_name`, added to `recorded` (the table before a run of some groups only).
    A key none of whose forms ran records how the first one failed: "build" with the delegate's
    words when its build failed, "untaken" when the delegate left it on the CPU."""
    from gpucompat.calibrate import grid
    from gpucompat.rules.support import calibration

    table = grid.by_key([(n, d["key"], d["result"], d["example"]) for n, d in done.items() if d["result"]], recorded)
    ran = {key for key, entry in table.items() if "fp32" in entry}
    for name, d in done.items():
        failed = d.get("build") or (d.get("refused") or "").startswith(UNTAKEN)
        if failed and d["key"] and d["key"] not in ran:  # a key some form of which ran: the failure is not the key's
            kind, words = ("build", d["build"]) if d.get("build") else ("untaken", "not taken at partitioning")
            table.setdefault(d["key"], {}).setdefault(kind, f"{words} ({name})")
    calibration.write(table, driver, table_name)
    return table


def _record_beside(done: dict, recorded: dict) -> dict:
    """Write the verdicts per key of the forms run so far on an adapter without fp16 shaders
    beside the recorded verdicts of the same keys ("without_f16"), into the shipped table."""
    from gpucompat.calibrate import grid
    from gpucompat.rules.support import calibration

    measured = grid.by_key([(n, d["key"], d["result"], d["example"]) for n, d in done.items() if d["result"]])
    table = {key: dict(entry) for key, entry in recorded.items()}
    for key, entry in measured.items():
        for precision, verdict in entry.items():
            if key in table and precision in table[key]:
                table[key][precision] = {**table[key][precision], "without_f16": verdict}
    head = calibration.load()
    calibration.write(table, head["driver"])
    return table


def _read(path: str) -> dict:
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        return json.load(fh)


def _write(path: str, done: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as fh:
        json.dump(done, fh)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    args = sys.argv[1:]
    beside = None
    on_gl = args[:2] == ["--delegate", "gl"]
    if on_gl:
        args = args[2:]
    if args[:1] == ["--without-f16"]:
        if len(args) < 2:
            sys.exit("record_grid.py: --without-f16 needs the set-up directory of the adapter")
        beside, args = args[1], args[2:]
    if args[:1] == ["--cut"]:
        from gpucompat.calibrate import grid_cut
        from gpucompat.rules.support import calibration

        table = calibration.GL if on_gl else calibration.ACCELERATOR
        added = grid_cut.add(args[1:], grid_cut.unmeasured(table), table)
        print(f"{len(added)} forms added to the group \"{'cut-gl' if on_gl else 'cut'}\" ({grid_cut.STORES[table]})")
    else:
        record(args, beside, on_gl)
