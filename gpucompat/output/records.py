"""Check results as plain dicts: the versioned JSON contract (docs/json-schema.md), also the
input of every other renderer."""

from __future__ import annotations

from collections import defaultdict

from gpucompat import __version__
from gpucompat.check import ModelResult
from gpucompat.rules.lint import Finding

SCHEMA_VERSION = 1


def unsupported_groups(result: ModelResult) -> list[dict]:
    """Rejected ops grouped by op type, reason and layer, with their node indices."""
    groups: dict[tuple, list] = defaultdict(list)
    for o in result.ops:
        if not o.verdict.ok:
            key = (o.op, o.opcode, o.custom_code, o.verdict.reason, o.verdict.layer, o.verdict.runtime_message)
            groups[key].append([o.subgraph, o.index])
    return [{"op": op, "opcode": code, "custom_code": custom, "count": len(nodes), "nodes": nodes,
             "reason": reason, "layer": layer, "runtime_message": message}
            for (op, code, custom, reason, layer, message), nodes in groups.items()]


def model_record(result: ModelResult, findings: list[Finding]) -> dict:
    """One model's JSON record."""
    return {
        "path": result.path,
        "profile": result.profile.name,
        "options": {"backend": result.options.backend, "allow_quant": result.options.allow_quant,
                    "max_delegated_partitions": result.options.max_delegated_partitions},
        "error": None,
        "summary": {
            "ops_total": result.ops_total, "ops_gpu": result.ops_gpu, "ops_cpu": result.ops_cpu,
            "partitions_total": result.partitions_total, "partitions_delegated": result.partitions_delegated,
            "fully_delegated": result.fully_delegated, "delegation_fails": result.delegation_fails,
        },
        "subgraphs": [
            {"index": s.index, "name": s.name, "ops_total": s.ops_total, "replaced": s.replaced,
             "partitions_after_replace": s.partitions_after_replace, "gate": s.gate,
             "topology_problem": s.topology_problem, "fp16_full_delegation": s.full_fp16_override,
             "node_subsets": [{"index": i, "type": "gpu" if sub.delegated_type else "cpu",
                               "delegated": i in s.delegated, "nodes": sub.nodes,
                               "input_tensors": sub.input_tensors, "output_tensors": sub.output_tensors}
                              for i, sub in enumerate(s.subsets)]}
            for s in result.subgraphs
        ],
        "unsupported": unsupported_groups(result),
        "ops": [{"subgraph": o.subgraph, "index": o.index, "op": o.op, "opcode": o.opcode,
                 "custom_code": o.custom_code, "version": o.version, "placement": o.placement,
                 "partition": o.partition, "supported": o.verdict.ok,
                 "layer": None if o.verdict.ok else o.verdict.layer,
                 "reason": o.verdict.reason or None}
                for o in result.ops],
        "findings": [{"code": f.code, "severity": f.severity, "message": f.message,
                      "nodes": [list(n) for n in f.nodes]} for f in findings],
    }


def error_record(path: str, profile: str, message: str) -> dict:
    """The record of a model that could not be checked."""
    return {"path": path, "profile": profile, "error": message, "summary": None, "subgraphs": [],
            "unsupported": [], "ops": [], "findings": []}


def document(models: list[dict]) -> dict:
    """The whole JSON document."""
    return {"schema_version": SCHEMA_VERSION, "tool": {"name": "gpucompat", "version": __version__},
            "models": models}
