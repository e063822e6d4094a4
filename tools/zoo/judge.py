"""Judge zoo models: the runtime against the `litert-mldrift` prediction on every point (the project's
own comparison, gpucompat/confirm/compare.py), then `gpucompat verify` and `gpucompat fix` as a user
runs them, recording exit codes, internal errors, their last words and the time each took."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpucompat.confirm import compare, runner

# The points the comparison checks, by how its disagreement lines begin (compare.disagreements).
POINTS = {
    "compiles": "compiles:",
    "gpu_ops": "GPU ops per subgraph",
    "partitions": "partitions per subgraph",
    "full": "fully delegated",
    "rejected": "rejected op types",
    "gate": "dynamic-tensor gate",
}
COMMAND_TIMEOUT = 600.0


def sha256(path: Path) -> str:
    """The model file's digest (a rebuilt model is judged again)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def confirm(paths: list[Path]) -> list[dict]:
    """Each model compiled on the real accelerator beside its prediction: agreement per point, both
    sides, and the runtime's own message when it did not compile."""
    found = compare.confirm([str(p) for p in paths], runner.launcher())
    out = []
    for c in found:
        rec = compare.record(c)
        points = {point: not any(d.startswith(prefix) for d in c.disagreements) for point, prefix in POINTS.items()}
        out.append({"agree": rec["agree"], "points": points, "disagreements": c.disagreements,
                    "runtime": rec["runtime"], "prediction": rec["prediction"]})
    return out


def run_cli(*args: str, report_on_stdout: bool = False) -> tuple[dict, str]:
    """Run the CLI as a user does, outside the source tree (the installed package): exit code,
    seconds, an internal error's line, the last lines (of stderr alone when `report_on_stdout`: a
    JSON report); and its standard output."""
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "gpucompat", *args], capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"exit": None, "seconds": round(time.monotonic() - start, 1), "internal_error": None,
                "timed_out": True, "tail": []}, ""
    internal = next((line for line in proc.stderr.splitlines() if "internal error" in line), None)
    said = proc.stderr if report_on_stdout else proc.stdout + proc.stderr
    tail = [line for line in said.splitlines() if line.strip()][-6:]
    return {"exit": proc.returncode, "seconds": round(time.monotonic() - start, 1),
            "internal_error": internal if proc.returncode == 2 else None, "timed_out": False,
            "tail": tail}, proc.stdout


def verify(path: Path, runs: int = 1) -> dict:
    """`gpucompat verify MODEL --runs N` on the included executor."""
    return run_cli("verify", os.path.abspath(path), "--runs", str(runs))[0]


def fix(path: Path) -> dict:
    """`gpucompat fix MODEL -o TEMP --format json` (the fixed model is thrown away): besides the run's
    outcome, the rewrites applied, the steps refused (a form known wrong or never measured on the
    accelerator; their reasons name the form), and the GPU ops before and after."""
    with tempfile.TemporaryDirectory() as tmp:
        outcome, stdout = run_cli("fix", os.path.abspath(path), "-o", os.path.join(tmp, "fixed.tflite"),
                                     "--format", "json", report_on_stdout=True)
    try:
        doc = json.loads(stdout)
    except ValueError:  # no report: the run stopped before rewriting (its tail says why), nothing applied
        return {**outcome, "applied": [], "refused": [], "refusal": None, "gpu_ops": None}
    refused = [f"{e['rewrite']} at {e['candidate']}: {e['reason']}" for e in doc["not_applied"]
               if e["reason"].startswith("refused:")]
    return {**outcome, "applied": [e["rewrite"] for e in doc["applied"]], "refused": refused, "refusal": doc["refusal"],
            "gpu_ops": [doc["before"]["ops_gpu"], doc["after"]["ops_gpu"]]}
