"""Judge the zoo's LLM exports signature by signature: the real accelerator against `litert-mldrift`
(compile or crash, GPU ops and partitions per subgraph, rejected types), `verify` on every
signature, and `fix --profile litert-mldrift` with the accelerator checking each rewritten
signature, then the fixed model compiled on the accelerator beside its own prediction. A bundle is
judged through its TFLite section and compared with the plain export it bundles."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from gpucompat import ir
from gpucompat.ir import litertlm
from gpucompat.ir.signatures import signatures
from tools.zoo import judge

PROFILE = "litert-mldrift"


def model_path(path: Path) -> str:
    """The path the commands take: a bundle's one TFLite section, else the file."""
    if not litertlm.is_bundle(str(path)):
        return str(path)
    found = [s for s in litertlm.sections(str(path), ir.reader.map_file(str(path))) if s.is_tflite]
    return litertlm.section_path(str(path), found[0].index)


def _signature_names(path: str) -> dict[int, str]:
    """Subgraph index -> the signature that runs it."""
    return {index: name for name, index in signatures(ir.load(path))}


def _verify(path: str) -> dict:
    """`verify MODEL --profile litert-mldrift --runs 1 --format json`: the run's outcome and, per
    signature, whether it passed."""
    outcome, stdout = judge.run_cli("verify", path, "--profile", PROFILE, "--runs", "1", "--format", "json",
                                    report_on_stdout=True)
    try:
        doc = json.loads(stdout)
    except ValueError:
        return {**outcome, "signatures": {}}
    runs = doc.get("signatures") or [doc]
    return {**outcome, "signatures": {r.get("signature") or "main": bool(r.get("passed")) for r in runs}}


def _fix(path: str) -> dict:
    """`fix MODEL -o TEMP --profile litert-mldrift --format json` (the accelerator checks the output
    when a Vulkan device is set up): rewrites applied, GPU ops before and after, each verification
    backend's verdict per signature, and the fixed model compiled on the accelerator."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fixed.tflite")
        outcome, stdout = judge.run_cli("fix", path, "-o", out, "--profile", PROFILE, "--format", "json",
                                        report_on_stdout=True)
        try:
            doc = json.loads(stdout)
        except ValueError:
            return {**outcome, "applied": [], "gpu_ops": None, "proofs": {}, "fixed": None}
        proofs = {b["backend"]: ("not run" if b["not_run"] else "passed" if b["ok"] else "failed")
                  for b in doc["verification"]["backends"]} if doc.get("verification") else {}
        fixed = judge.confirm([Path(out)])[0] if os.path.isfile(out) else None
    return {**outcome, "applied": sorted({e["rewrite"] for e in doc["applied"]}),
            "gpu_ops": [doc["before"]["ops_gpu"], doc["after"]["ops_gpu"], doc["after"]["ops_total"]],
            "proofs": proofs, "refusal": doc.get("refusal"), "fixed": fixed}


def judge_model(path: Path, plain: Path | None) -> dict:
    """One LLM export's record (`plain`: the file a bundle bundles, to compare the two)."""
    target = model_path(path)
    record = {"signatures": _signature_names(target), "confirm": judge.confirm([Path(target)])[0],
              "verify": _verify(target), "fix": _fix(target)}
    if plain is not None and plain.is_file() and target != str(path):
        theirs = judge.confirm([plain])[0]
        record["same_as_plain"] = all(_delegation(record["confirm"][side]) == _delegation(theirs[side])
                                      for side in ("prediction", "runtime"))
    return record


def _delegation(side: dict) -> dict:
    """What a side says about the delegation (not where the file was)."""
    return {k: side.get(k) for k in ("compiles", "gpu_ops", "partitions", "rejected", "fully_delegated")}
