"""Snapshots of what `gpucompat check` prints: terminal, JSON and SARIF, on real MediaPipe models
and on generated ones, stored under tests/snapshots/ (one readable file per model and format).

A change in what a user sees shows up as a diff of those files. When the change is intended,
rewrite them and review the diff before committing:

    GPUCOMPAT_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py

Volatile fields are normalised: the model's directory (the command runs beside the model, which
it names without a directory) and the tool version. The output is a pipe, so it is never wrapped
(COLUMNS is set to show that it does not matter).
JSON and SARIF are cut to what a reader checks (summary, node subsets, rejected ops, findings,
what-if; SARIF results with at most 5 locations each); the full documents are covered by
tests/test_formats.py."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpucompat import __version__

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("GPUCOMPAT_UPDATE_SNAPSHOTS") == "1"
MAX_LOCATIONS = 5

# (model, real MediaPipe model or a generated one, profile)
CASES = [
    ("pose_landmark_full", "real", "litert-mldrift"),  # fp16 weights: one kernel, DEQUANTIZE not rejected
    ("face_detection_full_range_sparse", "real", "litert-mldrift"),  # DENSIFY splits it: fix folds
    ("selfie_segmentation", "real", "litert-mldrift"),  # Convolution2DTransposeBias on the GPU
    ("two_gathers", "generated", "gpu-current"),  # two rejected GATHER_NDs, partitions dropped
    ("rw_fp16_partial", "generated", "litert-mldrift"),  # fp16 weights in a partly delegated graph
    ("rw_while", "generated", "litert-mldrift"),  # control flow: one partition per subgraph
]
FORMATS = ("terminal", "json", "sarif")


def _check(path: str, profile: str, fmt: str) -> str:
    """`gpucompat check NAME.tflite` run in the model's directory, at a fixed terminal width."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    r = subprocess.run([sys.executable, "-m", "gpucompat", "check", os.path.basename(path), "--profile", profile,
                        "--format", fmt], capture_output=True, text=True, cwd=os.path.dirname(path), env=env,
                       timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return r.stdout.replace(__version__, "<version>")


def json_view(text: str) -> str:
    """The parts of the JSON record a reader checks, one model."""
    (rec,) = json.loads(text)["models"]
    view = {
        "path": rec["path"], "profile": rec["profile"], "summary": rec["summary"],
        "subgraphs": [{"index": s["index"], "ops_total": s["ops_total"], "replaced": s["replaced"],
                       "partitions_after_replace": s["partitions_after_replace"],
                       "fp16_full_delegation": s["fp16_full_delegation"],
                       "node_subsets": [f"{n['type']} {len(n['nodes'])} op(s)"
                                        + (" delegated" if n["delegated"] else "") for n in s["node_subsets"]]}
                      for s in rec["subgraphs"]],
        "unsupported": [{k: u[k] for k in ("op", "count", "layer", "reason")} for u in rec["unsupported"]],
        "findings": [f"{f['code']} {f['severity']}: {f['message']}" for f in rec["findings"]],
        "what_if": [w["summary"] for w in rec["what_if"]],
    }
    return json.dumps(view, indent=1) + "\n"


def sarif_view(text: str) -> str:
    """SARIF results: rule, level, message, file name and the first locations in the model."""
    (run,) = json.loads(text)["runs"]
    results = []
    for r in run["results"]:
        (loc,) = r["locations"]
        names = [n["fullyQualifiedName"] for n in loc.get("logicalLocations", [])]
        results.append({"ruleId": r["ruleId"], "level": r["level"], "message": r["message"]["text"],
                        "file": os.path.basename(loc["physicalLocation"]["artifactLocation"]["uri"]),
                        "locations": names[:MAX_LOCATIONS] + ([f"... {len(names) - MAX_LOCATIONS} more"]
                                                              if len(names) > MAX_LOCATIONS else [])})
    return json.dumps({"tool": run["tool"]["driver"]["name"], "results": results}, indent=1) + "\n"


VIEWS = {"terminal": lambda text: text, "json": json_view, "sarif": sarif_view}
SUFFIX = {"terminal": "txt", "json": "json", "sarif": "sarif.json"}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name,kind,profile", CASES)
def test_check_output_matches_its_snapshot(models, real_models, name, kind, profile, fmt):
    path = str(real_models[name]) if kind == "real" else models.path(name)
    got = VIEWS[fmt](_check(path, profile, fmt))
    snapshot = SNAPSHOTS / f"{name}.{profile}.{SUFFIX[fmt]}"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        snapshot.write_text(got)
        return
    assert snapshot.exists(), f"{snapshot} is missing: create it with GPUCOMPAT_UPDATE_SNAPSHOTS=1"
    assert got == snapshot.read_text(), (f"`gpucompat check --format {fmt}` on {name} differs from {snapshot}; "
                                         f"if intended, rerun with GPUCOMPAT_UPDATE_SNAPSHOTS=1 and review the diff")
