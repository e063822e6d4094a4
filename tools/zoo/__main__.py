"""`python -m tools.zoo build|judge|numerics|llm [--only SUBSTRING] [--until HH:MM]`: build the zoo's
models into the cache (skipping those already there), judge the built ones not judged yet
(`--watch` keeps judging what a concurrent build adds; `--again STEP` redoes a step on judged
models, `--results FILE` reads and writes another results file), run the built ones on the
accelerator and judge their numbers against `check` (tools/zoo/numerics.py), or judge the LLM
exports signature by signature (tools/zoo/llm_judge.py); a model whose bytes are unchanged is not
judged again; one line of progress per model on stdout."""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import time
import traceback
from pathlib import Path

from gpucompat.errors import GpucompatError
from tools.zoo import catalog, judge, llm_judge, numerics, results


def _past(until: str | None) -> bool:
    """Whether the UTC wall clock is past `until` ("HH:MM")."""
    if not until:
        return False
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M")
    return now >= until


def _first_error_line(text: str) -> str:
    """The line of an exception's text that says what went wrong (the converter's "error:" line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if "error:" in line), lines[0] if lines else "")[:300]


def build(only: str | None, until: str | None) -> None:
    """Build every selected model in a worker process, starting a new worker when the converter
    kills one (it segfaults on some graphs): the model it died on is marked and skipped after."""
    argv = [sys.executable, "-m", "tools.zoo", "build-worker"] + (["--only", only] if only else []) + (
        ["--until", until] if until else [])
    while subprocess.run(argv).returncode != 0:
        print("the build worker died; starting another", flush=True)


def build_worker(only: str | None, until: str | None) -> None:
    """Build every selected model not cached yet; a builder's failure is logged and the run goes on."""
    for e in catalog.entries():
        if only and only not in e.name:
            continue
        if _past(until):
            print(f"stopped at {until} UTC", flush=True)
            return
        path = e.path()
        started = path.with_name(path.name + ".building")
        if path.is_file():
            continue
        if started.is_file():
            print(f"SKIPPED {e.name}: its build killed the converter's process before", flush=True)
            results.note_failure(e.name, "the converter's process died (segmentation fault or abort)")
            continue
        start = time.monotonic()
        started.parent.mkdir(parents=True, exist_ok=True)
        started.touch()
        try:
            e.built()
            print(f"built {e.name} in {time.monotonic() - start:.1f} s ({path.stat().st_size} bytes)", flush=True)
            results.note_failure(e.name, None)
        except Exception as exc:  # a builder that fails is reported, and the zoo goes on
            why = f"{type(exc).__name__}: {_first_error_line(str(exc))}"
            print(f"FAILED {e.name} after {time.monotonic() - start:.1f} s: {why}", flush=True)
            results.note_failure(e.name, why)
            traceback.print_exc()
        started.unlink()


CONFIRM_BATCH = 20  # models compiled on the accelerator before their records are saved


STEPS = ("confirm", "verify", "fix")


def _pending(only: str | None, records: dict[str, dict], stale: set[str]) -> list[tuple]:
    """Built models with no record for their current file, or named in `stale`: (entry, path,
    [size, mtime])."""
    found = []
    for e in catalog.entries():
        path = e.path()
        if (only and only not in e.name) or not path.is_file():
            continue
        stat = path.stat()
        stamp = [stat.st_size, stat.st_mtime_ns]
        if e.name in stale or records.get(e.name, {}).get("stamp") != stamp:
            found.append((e, path, stamp))
    return found


def _confirm_pending(pending: list, records: dict[str, dict], where: Path | None) -> None:
    """Compile every pending model on the accelerator (fast) and record it; verify and fix are kept
    from the last record when the bytes are the same, else left to run (None)."""
    digests = [judge.sha256(p) for _, p, _ in pending]
    for (e, _, stamp), digest, conf in zip(pending, digests, judge.confirm([p for _, p, _ in pending])):
        old = records.get(e.name, {})
        same = old.get("sha256") == digest
        kept = {step: old.get(step) if same else None for step in ("verify", "fix")}
        records[e.name] = {"family": e.family, "architecture": e.architecture, "mode": e.mode,
                           "quantization": e.quantization, "versions": e.versions(), "sha256": digest,
                           "stamp": stamp, "bytes": stamp[0], "confirm": conf, **kept}
        print(f"confirmed {e.name}: agree={conf['agree']}"
              + "".join(f"\n  DISAGREE {d}" for d in conf["disagreements"]), flush=True)
    results.save(records, where)


def judge_all(only: str | None, until: str | None, watch: bool, runs: int, again: set[str],
              where: Path | None) -> None:
    """Compare every built model with the accelerator as soon as it is built, and run verify and fix
    on the compared ones in build order (only the steps a record lacks), saving each record as soon
    as it changes. `again` names steps to redo on models already judged (the runtime and the model
    unchanged, the code judging them changed); `where` is the results file (default: the cache's)."""
    records = results.load(where)
    selected = [e for e in catalog.entries() if not only or only in e.name]
    judged = {e.name for e in selected if e.name in records}
    for name in judged:  # a step left None is run again
        records[name].update({step: None for step in again - {"confirm"}})
    stale = judged if "confirm" in again else set()
    while not _past(until):
        pending = _pending(only, records, stale)
        if pending:
            batch = pending[:CONFIRM_BATCH]
            _confirm_pending(batch, records, where)
            stale -= {e.name for e, _, _ in batch}
            continue
        waiting = [e for e in selected if e.name in records
                   and (records[e.name]["verify"] is None or records[e.name]["fix"] is None)]
        if not waiting:
            if not watch:
                return
            time.sleep(30)
            continue
        e = waiting[0]
        rec = records[e.name]
        if rec["verify"] is None:
            rec["verify"] = judge.verify(e.path(), runs)
        if rec["fix"] is None:
            rec["fix"] = judge.fix(e.path())
        results.save(records, where)
        print(f"ran {e.name}: verify={rec['verify']['exit']} ({rec['verify']['seconds']} s) "
              f"fix={rec['fix']['exit']} ({rec['fix']['seconds']} s)", flush=True)


def twin(e: catalog.Entry) -> str | None:
    """A full-int8 model's float twin (same architecture and seeded weights, fp32), when built."""
    found = catalog.by_name().get(e.name.removesuffix(e.mode) + "fp32")
    return str(found.path()) if found is not None and found.path().is_file() else None


def numerics_all(only: str | None, until: str | None, recheck: bool) -> None:
    """Judge the numbers of every built model not judged for its current bytes, and of what `fix`
    makes of it, saving after each; `recheck`: `check` and `fix` run again on those judged already
    (the table changed)."""
    records = results.load_numerics()
    table = numerics.table_digest()
    for e in catalog.entries():
        if only and only not in e.name:
            continue
        try:
            path = e.path()
        except OSError as exc:  # the family's tools are not installed here (the torch venv)
            print(f"numerics {e.name}: not built here ({exc.strerror})", flush=True)
            continue
        if not path.is_file():
            continue
        if _past(until):
            print(f"stopped at {until} UTC", flush=True)
            return
        digest = judge.sha256(path)
        other = twin(e) if e.mode == "int8" else None
        if records.get(e.name, {}).get("sha256") == digest:
            if recheck and records[e.name].get("table") != table:
                records[e.name] = {**numerics.checked(records[e.name], str(path)), "table": table,
                                   "fixed": numerics.after_fix(str(path), e.mode, other)}
                results.save_numerics(records)
            continue
        start = time.monotonic()
        try:
            rec = numerics.judge(str(path), e.mode, other)
        except GpucompatError as exc:  # the CPU cannot run it (a custom op without a kernel): not judged
            rec = {"skipped": str(exc)[:200]}
        records[e.name] = {"sha256": digest, "family": e.family, "quantization": e.quantization, "table": table,
                           "fixed": numerics.after_fix(str(path), e.mode, other),
                           "seconds": round(time.monotonic() - start, 1), **rec}
        results.save_numerics(records)
        said = {p: rec[p].get("check", rec[p].get("error")) for p in ("fp32", "fp16") if p in rec}
        print(f"numerics {e.name}: {rec.get('skipped') or said}", flush=True)


def llm_all(only: str | None, until: str | None) -> None:
    """Judge every built LLM export not judged for its current bytes (tools/zoo/llm_judge.py),
    saving after each."""
    records = results.load(results.llm_path())
    entries = catalog.by_name()
    for e in entries.values():
        if e.family != "llm" or (only and only not in e.name) or not e.path().is_file():
            continue
        if _past(until):
            print(f"stopped at {until} UTC", flush=True)
            return
        digest = judge.sha256(e.path())
        if records.get(e.name, {}).get("sha256") == digest:
            continue
        start = time.monotonic()
        plain = entries.get(e.name.replace("_litertlm", "")) if e.suffix == ".litertlm" else None
        rec = llm_judge.judge_model(e.path(), plain.path() if plain is not None else None)
        records[e.name] = {"sha256": digest, "architecture": e.architecture, "mode": e.mode,
                           "quantization": e.quantization, "bundle": e.suffix == ".litertlm",
                           "seconds": round(time.monotonic() - start, 1), **rec}
        results.save(records, results.llm_path())
        fixed = rec["fix"]["fixed"]
        print(f"llm {e.name}: agree={rec['confirm']['agree']} verify={rec['verify']['exit']} "
              f"fix={rec['fix']['exit']} gpu_ops={rec['fix']['gpu_ops']} "
              f"fixed_agree={fixed and fixed['agree']}" + "".join(f"\n  DISAGREE {d}" for d in
                                                                    rec["confirm"]["disagreements"]), flush=True)


def main() -> None:
    """Parse the command line and run the step asked for."""
    parser = argparse.ArgumentParser(prog="python -m tools.zoo")
    parser.add_argument("step", choices=["build", "build-worker", "judge", "numerics", "llm"])
    parser.add_argument("--only", help="only models whose name contains this")
    parser.add_argument("--until", help="stop starting new models at this UTC time (HH:MM)")
    parser.add_argument("--watch", action="store_true", help="judge: wait for more models until --until")
    parser.add_argument("--runs", type=int, default=1, help="judge: verify's --runs (default 1)")
    parser.add_argument("--again", action="append", choices=STEPS, default=[],
                        help="judge: redo this step on models already judged (repeatable)")
    parser.add_argument("--recheck", action="store_true",
                        help="numerics: run check and fix again on models judged already (after the table changed)")
    parser.add_argument("--results", type=Path, help="judge: the results file to read and write "
                        "(default: results.json in the zoo's cache)")
    args = parser.parse_args()
    if args.step == "build":
        build(args.only, args.until)
    elif args.step == "build-worker":
        build_worker(args.only, args.until)
    elif args.step == "numerics":
        numerics_all(args.only, args.until, args.recheck)
    elif args.step == "llm":
        llm_all(args.only, args.until)
    else:
        judge_all(args.only, args.until, args.watch, args.runs, set(args.again), args.results)


if __name__ == "__main__":
    main()
