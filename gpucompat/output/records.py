"""Check results as plain dicts: the versioned JSON contract (docs/json-schema.md), also the
input of every other renderer."""

from __future__ import annotations

import os
import shlex
from collections import defaultdict
from dataclasses import asdict

from gpucompat import __version__
from gpucompat.analyses.boundaries import PRECISION_DEFAULTS
from gpucompat.analyses.channel_padding import STORED_BYTES
from gpucompat.attribution.hints import hints_for
from gpucompat.placement import ModelResult
from gpucompat.rules.lint import Finding
from gpucompat.rules.lint.calibrated_forms import UNMEASURED_CODES, WRONG_CODES
from gpucompat.rules.support.profile import label
from gpucompat.rules.support.registry import DEFAULT
from gpucompat.unsupported import FP16_LISTED, listed_fp16_nodes, unsupported_groups

SCHEMA_VERSION = 1


def _op_record(o, listed: bool, source: dict | None) -> dict:
    """One op's JSON record; a listed FP16 DEQUANTIZE is unsupported, as the runtime lists it."""
    if listed:
        supported, layer, reason = False, "partition", FP16_LISTED
    else:
        supported, layer, reason = o.verdict.ok, None if o.verdict.ok else o.verdict.layer, o.verdict.reason or None
    return {"subgraph": o.subgraph, "index": o.index, "op": o.op, "opcode": o.opcode,
            "custom_code": o.custom_code, "version": o.version, "placement": o.placement,
            "partition": o.partition, "supported": supported, "layer": layer, "reason": reason, "source": source}


def model_record(result: ModelResult, findings: list[Finding], analyses=None, sources=None) -> dict:
    """One model's JSON record; `analyses` (gpucompat.analyses.analyze of the same check) fills
    the cost keys, which are null / empty without it, names every op's input and output tensors
    and carries the model's description and metadata names; `sources` (gpucompat.attribution's
    {(subgraph, op): Source}) gives each op its source and each finding the sources of its nodes."""
    listed = listed_fp16_nodes(result)
    source = {key: s.record() for key, s in (sources or {}).items()}
    hinted = _hinted(result, analyses.model, sources) if analyses is not None and sources else {}
    rec = {
        "path": result.path,
        "profile": result.profile.name,
        "release": result.profile.release,
        "options": {"backend": result.options.backend, "allow_quant": result.options.allow_quant,
                    "max_delegated_partitions": result.options.max_delegated_partitions},
        "error": None,
        "summary": {
            "ops_total": result.ops_total, "ops_gpu": result.ops_gpu, "ops_cpu": result.ops_cpu,
            "partitions_total": result.partitions_total, "partitions_delegated": result.partitions_delegated,
            "fully_delegated": result.fully_delegated, "delegation_fails": result.delegation_fails,
            "failure": result.failure, "backend_used": result.backend_used,
            **_numerics(result, findings),
        },
        "subgraphs": [
            {"index": s.index, "name": s.name, "signatures": list(s.signatures), "ops_total": s.ops_total,
             "replaced": s.replaced,
             "partitions_after_replace": s.partitions_after_replace, "gate": s.gate,
             "topology_problem": s.topology_problem, "fp16_full_delegation": s.full_fp16_override,
             "fp16_dequantize": s.fp16_dequantize,
             "node_subsets": [{"index": i, "type": "gpu" if sub.delegated_type else "cpu",
                               "delegated": i in s.delegated, "nodes": sub.nodes,
                               "input_tensors": sub.input_tensors, "output_tensors": sub.output_tensors}
                              for i, sub in enumerate(s.subsets)]}
            for s in result.subgraphs
        ],
        "unsupported": [{**g, "sources": _sources(g["nodes"], source), "hints": _hints(g["nodes"], hinted)}
                        for g in unsupported_groups(result)],
        "wrong": [{"code": f.code, "nodes": [list(n) for n in f.nodes], "message": f.message,
                   "sources": _sources(f.nodes, source)} for f in findings if f.code in WRONG_CODES],
        "ops": [_op_record(o, (o.subgraph, o.index) in listed, source.get((o.subgraph, o.index)))
                for o in result.ops],
        "findings": [{"code": f.code, "severity": f.severity, "message": f.message,
                      "nodes": [list(n) for n in f.nodes], "baselined": False,
                      "sources": _sources(f.nodes, source), "hints": _hints(f.nodes, hinted)} for f in findings],
        **(analysis_records(analyses) if analyses is not None else NO_ANALYSES),
    }
    for w in rec["what_if"]:
        w["command"] = _fix_command(result, w) if w["kind"] == "rewrite" else None
    if analyses is not None:
        model = analyses.model
        described: dict[int, dict] = {}  # a tensor is read by several ops: described once
        for o in rec["ops"]:
            op = model.graphs[o["subgraph"]].ops[o["index"]]
            o["inputs"] = [described.get(id(t)) or _tensor(t, described) for t in op.inputs if t is not None]
            o["outputs"] = [described.get(id(t)) or _tensor(t, described) for t in op.outputs]
        desc = model.fb.description
        rec["model"] = {"description": desc.decode("utf-8", "replace") if isinstance(desc, bytes) else (desc or ""),
                        "metadata": sorted(model.metadata())}
    return rec


def _numerics(result: ModelResult, findings: list[Finding]) -> dict:
    """ops_wrong and ops_unmeasured: counted where a numerics table stands for the profile, null
    (unknown) where none does: nothing was measured, so nothing is known right."""
    from gpucompat.rules.support.calibration import measured

    if not measured(result.profile, result.options.backend):
        return {"ops_wrong": None, "ops_unmeasured": None}
    return {"ops_wrong": len({n for f in findings if f.code in WRONG_CODES for n in f.nodes}),
            "ops_unmeasured": len({n for f in findings if f.code in UNMEASURED_CODES for n in f.nodes})}


def _fix_command(result: ModelResult, w: dict) -> str:
    """The command that applies a what-if's rewrite, to paste: the model, an output beside it, the
    rewrite, and the profile when it is not the default."""
    root, _ = os.path.splitext(result.path.split("::", 1)[0])
    words = ["gpucompat", "fix", result.path, "-o", f"{root}.fixed.tflite", "--rewrite", w["op"]]
    if result.profile.name != DEFAULT:
        words += ["--profile", result.profile.name]
    return shlex.join(words)


def _hinted(result: ModelResult, model, sources: dict) -> dict[tuple[int, int], list]:
    """The source-level hints (gpucompat.attribution.hints) of each rejected op that has one."""
    out = {}
    for o in result.ops:
        if not o.verdict.ok:
            key = (o.subgraph, o.index)
            found = hints_for(model.graphs[o.subgraph].ops[o.index], sources[key].framework, o.verdict.reason or "")
            if found:
                out[key] = found
    return out


def _hints(nodes, hinted: dict) -> list[dict]:
    """The distinct hints of the nodes, in node order."""
    found = {h.key: h for n in nodes for h in hinted.get(tuple(n), ())}
    return [h.record() for h in found.values()]


def _sources(nodes, source: dict) -> list[str]:
    """The distinct source paths of the nodes, in node order (unattributed nodes add none)."""
    paths = (source.get(tuple(n), {}).get("path") for n in nodes)
    return list(dict.fromkeys(p for p in paths if p is not None))


def _tensor(t, described: dict[int, dict]) -> dict:
    """A tensor as the op records name it: index, name, shape signature (-1 dynamic), type, and
    the shape as stored (what the runtime allocates, as the terminal prints it) where it differs
    from the signature. A tensor read by several ops is described once and the ops' lists share
    that record (records are read, never edited in place)."""
    d = described.get(id(t))
    if d is None:
        signature, shape = t.signature, t.shape
        d = described[id(t)] = {"index": t.index, "name": t.name, "shape": list(signature), "dtype": t.dtype_name}
        if signature != shape:
            d["stored_shape"] = list(shape)
    return d


def analysis_records(a) -> dict:
    """The cost analyses, one key each."""
    cp, bd = a.channel_padding, a.boundaries
    return {
        "channel_padding": {
            "useful_elements": cp.useful_elements, "padded_elements": cp.padded_elements,
            "waste_ratio": round(cp.waste_ratio, 6), "bytes_per_element": STORED_BYTES,
            "useful_macs": cp.useful_macs, "padded_macs": cp.padded_macs,
            "tensors": [{"subgraph": t.subgraph, "index": t.index, "name": t.name, "shape": t.shape,
                         "dtype": t.dtype, "channels": t.channels, "useful_elements": t.useful_elements,
                         "padded_elements": t.padded_elements, "wasted_bytes": t.wasted_bytes,
                         "single_texture_possible": t.single_texture_possible} for t in cp.tensors],
            "ops": [{"subgraph": o.subgraph, "index": o.index, "op": o.op, "useful_macs": o.useful_macs,
                     "padded_macs": o.padded_macs} for o in cp.ops],
        },
        "hotspots": [{"subgraph": h.subgraph, "index": h.index, "op": h.op, "placement": h.placement,
                      "bytes_moved": h.bytes_moved, "detail": h.detail, "fix": h.fix} for h in a.hotspots],
        "boundaries": {
            "round_trips": bd.round_trips, "bytes_per_inference": bd.bytes_per_inference,
            "kernels": [{"subgraph": k.subgraph, "nodes": k.nodes, "bytes_in": k.bytes_in, "bytes_out": k.bytes_out,
                         "tensors": [asdict(c) for c in k.crossings]} for k in bd.kernels],
            "precision_defaults": list(PRECISION_DEFAULTS),
        },
        "what_if": [{"kind": w.kind, "op": w.op, "nodes": [list(n) for n in w.nodes], "ops_gpu": w.ops_gpu,
                     "ops_total": w.ops_total, "partitions_delegated": w.partitions_delegated,
                     "partitions_total": w.partitions_total, "delegation_fails": w.delegation_fails,
                     "gain": w.gain, "summary": w.describe()} for w in a.what_if],
    }


NO_ANALYSES = {"channel_padding": None, "hotspots": [], "boundaries": None, "what_if": []}


def shown(rec: dict) -> str:
    """The record's profile as outputs show it, with the release it describes."""
    return label(rec["profile"], rec.get("release"))


def error_record(path: str, profile: str, message: str, release: str | None = None) -> dict:
    """The record of a model that could not be checked."""
    return {"path": path, "profile": profile, "release": release, "error": message, "summary": None, "subgraphs": [],
            "inputs": None, "unsupported": [], "wrong": [], "ops": [], "findings": [], **NO_ANALYSES}


def comparison(models: list[dict]) -> list[dict]:
    """Per model file, one row per profile: the side-by-side table of `--profile a,b,c`."""
    rows: dict[str, list[dict]] = defaultdict(list)
    for rec in models:
        s = rec["summary"] or {}
        rows[rec["path"]].append({"profile": rec["profile"], "release": rec.get("release"), "error": rec["error"],
                                  "ops_total": s.get("ops_total"), "ops_gpu": s.get("ops_gpu"),
                                  "partitions_delegated": s.get("partitions_delegated"),
                                  "partitions_total": s.get("partitions_total"),
                                  "delegation_fails": s.get("delegation_fails")})
    return [{"path": path, "profiles": profiles} for path, profiles in rows.items()]


def document(models: list[dict], compare: bool = False) -> dict:
    """The whole JSON document; with `compare` (several profiles) also the comparison table."""
    doc = {"schema_version": SCHEMA_VERSION, "tool": {"name": "gpucompat", "version": __version__},
           "models": models}
    if compare:
        doc["comparison"] = comparison(models)
    return doc
