"""The fuzz campaign: mutated models through every command, judged against the contract in
docs/robustness.md.

    python -m fuzz.campaign --cases 10000 --seed 0 --jobs 2           # the recorded campaign
    python -m fuzz.campaign --seed 0 --case 1234 --keep /tmp/case     # reproduce one case

Case N of seed S is drawn from random.Random(f"{S}/{N}") alone: the seed model, the mutation and
the command. Failing cases are written to --failures (model + command) and listed in the summary."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass

from fuzz import judge, mutate, runner, seeds

# (name, weight, argv); {model}, {dir} and {cache} are filled in per case
COMMANDS: list[tuple[str, int, list[str]]] = [
    ("check", 5, ["check", "{model}"]),
    ("check-json", 3, ["check", "{model}", "--format", "json"]),
    ("check-sarif", 2, ["check", "{model}", "--format", "sarif"]),
    ("check-github", 1, ["check", "{model}", "--format", "github"]),
    ("check-model-explorer", 1, ["check", "{model}", "--format", "model-explorer", "--output", "{dir}/overlay.json"]),
    ("check-profiles", 2, ["check", "{model}", "--profile", "gpu-2019-docs,gpu-2019,gpu-2020,litert-mldrift",
                           "--format", "json"]),
    ("check-gl", 1, ["check", "{model}", "--backend", "gl", "--no-quant", "--max-delegated-partitions", "3"]),
    ("fix-dry-run", 3, ["fix", "{model}", "--dry-run"]),
    ("fix-dry-run-json", 1, ["fix", "{model}", "--dry-run", "--format", "json", "--unsafe-fixes"]),
    ("fix-write", 1, ["fix", "{model}", "-o", "{dir}/fixed.tflite", "--no-verify", "--unsafe-fixes"]),
    ("report", 2, ["report", "{model}", "-o", "{dir}/report.html"]),
    ("verify", 1, ["verify", "{model}", "--runs", "1", "--cache-dir", "{cache}"]),
]
STDOUT_FORMAT = {"check-json": "json", "check-sarif": "json", "check-profiles": "json", "fix-dry-run-json": "json",
                 "check-github": "github", "report": "html"}
TIMEOUT_S = {"verify": 120.0}
DEFAULT_TIMEOUT_S = 30.0
MEMORY_CAP_MB = 2048  # address space a child may add to the parent's (RLIMIT_AS)
RSS_BOUND_MB = 1024  # peak resident memory a case may reach, whatever its shapes claim


@dataclass
class Case:
    """One drawn case: which seed, which mutation, which command, and the mutated bytes."""

    number: int
    seed_model: str
    mutation: str
    command: str
    argv: list[str]
    data: bytes


def draw(seed: int, number: int, corpus: dict[str, bytes], commands: list[tuple[str, int, list[str]]]) -> Case:
    """Case `number` of campaign `seed` (argv still has its {placeholders})."""
    rng = random.Random(f"{seed}/{number}")
    names = sorted(corpus)
    base, other = rng.choice(names), rng.choice(names)
    mutation, data = mutate.mutate(rng, corpus[base], corpus[other])
    name, _, argv = rng.choices(commands, weights=[w for _, w, _ in commands])[0]
    return Case(number, base, mutation, name, argv, data)


def _prepare(case: Case, root: str, cache: str) -> tuple[str, list[str]]:
    directory = os.path.join(root, f"case-{case.number}")
    os.makedirs(directory)
    model = os.path.join(directory, "model.tflite")
    with open(model, "wb") as f:
        f.write(case.data)
    return model, [a.format(model=model, dir=directory, cache=cache) for a in case.argv]


def run_cases(cases: list[Case], parallel: int = 1, keep: str | None = None) -> list[dict]:
    """Run and judge every case; one record per case (its `failures` empty when it passed)."""
    runner.warm_up()
    root = keep or tempfile.mkdtemp(prefix="gpucompat-fuzz-")
    cache = os.path.join(root, "program-cache")
    prepared = {c.number: (c, *_prepare(c, root, cache)) for c in cases}
    base_rss = runner.status_mb("VmRSS")
    records = []
    try:
        for timeout in sorted({TIMEOUT_S.get(c.command, DEFAULT_TIMEOUT_S) for c in cases}):
            jobs = [(n, argv) for n, (c, _, argv) in prepared.items()
                    if TIMEOUT_S.get(c.command, DEFAULT_TIMEOUT_S) == timeout]
            for number, outcome in runner.run_many(jobs, parallel, timeout, MEMORY_CAP_MB):
                case, model, argv = prepared[number]
                report = os.path.join(os.path.dirname(model), "report.html")
                found = judge.failures(outcome, stdout_format=STDOUT_FORMAT.get(case.command, "text"),
                                       rss_bound_mb=base_rss + RSS_BOUND_MB, model_before=case.data,
                                       model_path=model, html_path=report if case.command == "report" else None)
                records.append({"case": number, "seed_model": case.seed_model, "mutation": case.mutation,
                                "command": case.command, "argv": argv, "exit_code": outcome.exit_code,
                                "seconds": round(outcome.seconds, 3),
                                "peak_rss_growth_mb": round(outcome.peak_rss_mb - base_rss, 1),
                                "stderr": judge.error_lines(outcome.stderr)[:3], "failures": found})
                if not keep:
                    shutil.rmtree(os.path.dirname(model), ignore_errors=True)
                if len(records) % 500 == 0:
                    print(f"{len(records)}/{len(cases)} cases, {sum(bool(r['failures']) for r in records)} failed",
                          file=sys.stderr, flush=True)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return sorted(records, key=lambda r: r["case"])


def summarize(records: list[dict], seconds: float) -> dict:
    """Totals by outcome, command and mutation, and the failing cases."""
    failed = [r for r in records if r["failures"]]
    kinds = Counter(k.split(" (")[0] for r in failed for k in r["failures"])
    return {
        "cases": len(records), "failed": len(failed), "failure_kinds": dict(kinds),
        "tracebacks": kinds.get("traceback", 0), "hangs": kinds.get("hang", 0),
        "crashes": sum(n for k, n in kinds.items() if k in ("crash", "internal error", "escaped exception")),
        "exit_codes": dict(Counter(str(r["exit_code"]) for r in records)),
        "commands": dict(Counter(r["command"] for r in records)),
        "mutations": dict(Counter(m for r in records for m in r["mutation"].split("+"))),
        "max_seconds": max((r["seconds"] for r in records), default=0),
        "slowest": [{k: r[k] for k in ("case", "seed_model", "mutation", "command", "seconds")}
                    for r in sorted(records, key=lambda r: -r["seconds"])[:5]],
        "max_peak_rss_growth_mb": max((r["peak_rss_growth_mb"] for r in records), default=0),
        "wall_seconds": round(seconds, 1),
        "failures": failed,
    }


def main(argv: list[str] | None = None) -> int:
    """Command line of the campaign; exit 1 when any case failed."""
    ap = argparse.ArgumentParser(prog="python -m fuzz.campaign", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=1000, help="number of cases (numbered from --start)")
    ap.add_argument("--start", type=int, default=0, help="first case number")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed")
    ap.add_argument("--jobs", type=int, default=1, help="cases run at the same time")
    ap.add_argument("--case", type=int, help="run only this case number")
    ap.add_argument("--commands", help="only these commands (comma-separated names)")
    ap.add_argument("--keep", help="keep every case's files (model, outputs) under this directory")
    ap.add_argument("--failures", default="fuzz-failures", help="directory for failing models")
    ap.add_argument("--summary", help="write the JSON summary to this file")
    args = ap.parse_args(argv)
    chosen = [c for c in COMMANDS if not args.commands or c[0] in args.commands.split(",")]
    corpus = seeds.corpus()
    numbers = [args.case] if args.case is not None else range(args.start, args.start + args.cases)
    start = time.monotonic()
    cases = [draw(args.seed, n, corpus, chosen) for n in numbers]
    summary = summarize(run_cases(cases, args.jobs, args.keep), time.monotonic() - start)
    if summary["failures"]:
        os.makedirs(args.failures, exist_ok=True)
        for case in cases:
            if any(r["case"] == case.number for r in summary["failures"]):
                digest = hashlib.sha256(case.data).hexdigest()[:12]
                with open(os.path.join(args.failures, f"case-{args.seed}-{case.number}-{digest}.tflite"), "wb") as f:
                    f.write(case.data)
    text = json.dumps(summary, indent=2)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(text + "\n")
    shown = {k: v for k, v in summary.items() if k != "failures"}
    print(json.dumps(shown, indent=2))
    for r in summary["failures"][:50]:
        print(f"case {r['case']} [{r['seed_model']} / {r['mutation']} / {r['command']}]: "
              f"{'; '.join(r['failures'])} :: {' | '.join(r['stderr'])[:300]}")
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
