"""SARIF 2.1.0 (OASIS) from the JSON document: one run, every rule as a reportingDescriptor with its
docs, every finding as a result located at the model file and, logically, at the layers or modules its
ops came from and at its ops. GitHub code
scanning reads it (`github/codeql-action/upload-sarif`)."""

from __future__ import annotations

import os
import pathlib

from gpucompat.output.by_source import shown_path
from gpucompat.output.records import shown
from gpucompat.rules.lint import all_rules

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(path: str) -> str:
    """A path relative to the working directory when it is inside it (what code scanning maps to
    the repository), else an absolute file URI."""
    rel = os.path.relpath(os.path.abspath(path))
    if rel.startswith(".."):
        return pathlib.Path(os.path.abspath(path)).as_uri()
    return rel.replace(os.sep, "/")


def sarif(doc: dict) -> dict:
    """The SARIF log of a gpucompat JSON document."""
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    results, notifications = [], []
    for rec in doc["models"]:
        uri = artifact_uri(rec["path"])
        if rec["error"]:
            notifications.append({"level": "error", "message": {"text": f"{rec['path']}: {rec['error']}"},
                                  "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}]})
            continue
        ops = {(o["subgraph"], o["index"]): o["op"] for o in rec["ops"]}
        for f in rec["findings"]:
            result = {"ruleId": f["code"], "ruleIndex": index[f["code"]], "level": LEVEL[f["severity"]],
                      "message": {"text": f"[{shown(rec)}] {f['message']}"},
                      "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}},
                                     "logicalLocations": [_source_location(p) for p in f.get("sources", [])[:20]]
                                     + [_op_location(g, i, ops.get((g, i), "")) for g, i in f["nodes"][:20]]}],
                      "partialFingerprints": {"gpucompatFinding/v1": f"{rec['profile']}:{f['code']}:{f['message']}"}}
            if f.get("baselined"):
                result["baselineState"] = "unchanged"
            results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "gpucompat", "version": doc["tool"]["version"],
                                "rules": [_descriptor(r) for r in rules]}},
            "invocations": [{"executionSuccessful": not notifications,
                             "toolExecutionNotifications": notifications}],
            "results": results,
        }],
    }


def _source_location(path: str) -> dict:
    """The Keras layer or PyTorch module a finding's ops came from (gpucompat.attribution)."""
    return {"fullyQualifiedName": shown_path(path), "kind": "module"}


def _op_location(subgraph: int, index: int, op: str) -> dict:
    return {"fullyQualifiedName": f"subgraph {subgraph}/op {index} {op}".strip(), "kind": "function"}


def _descriptor(rule) -> dict:
    return {"id": rule.code, "name": rule.name, "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.summary}, "help": {"text": rule.doc, "markdown": rule.doc},
            "defaultConfiguration": {"level": LEVEL[rule.severity]},
            "properties": {"tags": [rule.family], **({"fix": rule.fix} if rule.fix else {})}}
