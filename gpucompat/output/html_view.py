"""What the report template needs beyond a model record: the op strip (runs of ops in execution
order by placement and partition), the op table's data (each op with its tensors' names, shapes
and types, embedded as JSON the page renders on demand), the one-sentence verdict, and the
documentation of the rules that fired."""

from __future__ import annotations

import json
import re

from markupsafe import Markup, escape

from gpucompat.attribution.source import SEPARATOR

# Where an op ends up, as the strip and the table colour it.
GPU, SPARE, CPU = "gpu", "spare", "cpu"  # spare: supported, but in a partition the runtime did not delegate


def op_kind(op: dict) -> str:
    """gpu (delegated), spare (accepted by the delegate, left on the CPU by the partition choice,
    a failed delegation, or as a constant fp16 DEQUANTIZE of a partly delegated graph) or cpu
    (rejected)."""
    if op["placement"] == "gpu":
        return GPU
    return SPARE if op["supported"] else CPU


def strip_runs(rec: dict, subgraph: int) -> list[dict]:
    """Maximal runs of consecutive ops (execution order) with the same partition and kind: the
    strip draws one box per run, so its size grows with partitions, not with ops."""
    subsets = rec["subgraphs"][subgraph]["node_subsets"]
    runs: list[dict] = []
    for op in rec["ops"]:
        if op["subgraph"] != subgraph:
            continue
        kind = op_kind(op)
        last = runs[-1] if runs else None
        if last and last["partition"] == op["partition"] and last["kind"] == kind:
            last["last"] = op["index"]
            last["count"] += 1
            last["ops"].add(op["op"])
            continue
        part = op["partition"]
        runs.append({"first": op["index"], "last": op["index"], "count": 1, "kind": kind, "partition": part,
                     "delegated": part is not None and subsets[part]["delegated"], "ops": {op["op"]},
                     "boundary": bool(runs) and runs[-1]["partition"] != part})
    for r in runs:
        r["ops"] = ", ".join(sorted(r["ops"]))
    return runs


def _describe(t: dict) -> str:
    """A tensor's shape and type as the terminal prints them: `[1, 64, 64, 3] float32`, the shape
    the runtime allocates (a dynamic batch is stored as 1)."""
    shape = t.get("stored_shape", t["shape"])
    return f"{shape} {t['dtype']}" if shape else f"scalar {t['dtype']}"


def ops_data(rec: dict) -> dict:
    """The op table as the page's script reads it: one row per op (subgraph, index, op, op code,
    version, kind, partition, reason, input and output tensors as positions in `tensors`, padded
    share), and each tensor once as [name, "shape dtype"], so a chain does not repeat its tensors."""
    padding = op_padding(rec)
    tensors: list[list[str]] = []
    position: dict[tuple[int, int], int] = {}

    def refs(o: dict, key: str) -> list[int]:
        out = []
        for t in o.get(key, []):
            at = position.setdefault((o["subgraph"], t["index"]), len(tensors))
            if at == len(tensors):
                tensors.append([t["name"], _describe(t)])
            out.append(at)
        return out

    rows = [[o["subgraph"], o["index"], o.get("custom_code") or o["op"], o["opcode"], o["version"], op_kind(o),
             o["partition"], ": ".join(p for p in (o["layer"], o["reason"]) if p), refs(o, "inputs"),
             refs(o, "outputs"), padding.get((o["subgraph"], o["index"])), _source_path(o)] for o in rec["ops"]]
    return {"ops": rows, "tensors": tensors}


def _source_path(op: dict) -> str | None:
    """The op's source path as the table shows it and the source tree filters by it."""
    src = op.get("source") or {}
    return src.get("path")


def source_tree(rec: dict) -> dict | None:
    """The model's layers or modules as a tree (gpucompat.attribution's paths split at their
    framework's separator): each node its `name`, full `path`, `kind`, the ops of its subtree on
    the GPU, left on the CPU though supported, and rejected, and its `children` in the order their
    first op runs. None when no op has a source."""
    root = None
    for op in rec["ops"]:
        src = op.get("source") or {}
        if src.get("path") is None:
            continue
        if root is None:
            root = _tree_node("", "", None, src.get("framework"))
        node = root
        node[op_kind(op)] += 1
        sep = SEPARATOR.get(src.get("framework"), "/")
        parts = src["path"].split(sep) if src["path"] else []
        for depth, part in enumerate(parts):
            path = sep.join(parts[: depth + 1])
            child = node["children"].get(part)
            if child is None:
                child = node["children"][part] = _tree_node(part, path, None, src.get("framework"))
            node = child
            node[op_kind(op)] += 1
        node["kind"] = node["kind"] or src.get("kind")
        if not parts:
            root["kind"] = root["kind"] or src.get("kind")
    return _listed(root) if root else None


def _tree_node(name: str, path: str, kind: str | None, framework: str | None) -> dict:
    return {"name": name, "path": path, "kind": kind, "framework": framework, GPU: 0, SPARE: 0, CPU: 0,
            "children": {}}


def _listed(node: dict) -> dict:
    """The node with its children as a list (templates iterate lists)."""
    return {**node, "children": [_listed(c) for c in node["children"].values()]}


def script_json(value) -> Markup:
    """`value` as JSON safe inside a <script> element: every <, > and & is a \\u escape, so no
    model string can close the element or open markup."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def op_padding(rec: dict) -> dict[tuple[int, int], float]:
    """Share of each convolution's MACs spent on padding channels, keyed by (subgraph, op index),
    from the channel-padding analysis when the record has it."""
    cp = rec.get("channel_padding") or {}
    return {(o["subgraph"], o["index"]): (o["padded_macs"] - o["useful_macs"]) / o["padded_macs"]
            for o in cp.get("ops", []) if o["padded_macs"]}


def model_strings(rec: dict) -> dict:
    """The model's own description and metadata entry names (shown as text, never as markup)."""
    return rec.get("model") or {"description": "", "metadata": []}


def headline(rec: dict) -> str:
    """Where the model runs, in one sentence."""
    s = rec["summary"]
    total, gpu = s["ops_total"], s["ops_gpu"]
    if s["delegation_fails"]:
        return f"The delegation fails: all {total} ops run on the CPU."
    if any(sg["gate"] for sg in rec["subgraphs"]) and gpu == 0:
        return f"Nothing is delegated: all {total} ops run on the CPU."
    share = f"{100 * gpu / total:.0f}%" if total else "0%"
    parts = s["partitions_delegated"]
    where = f"in {parts} delegated partition{'s' if parts != 1 else ''}"
    if s["fully_delegated"]:
        return f"All {total} ops run on the GPU {where}."
    return f"{gpu} of {total} ops ({share}) run on the GPU {where}; {s['ops_cpu']} stay on the CPU."


_CODE = re.compile(r"`([^`]+)`")


def doc_html(doc: str) -> Markup:
    """A rule's documentation (## headings, paragraphs, `code`) as escaped HTML."""
    out = []
    for block in re.split(r"\n\s*\n", doc.strip()):
        lines = block.splitlines()
        if lines and lines[0].startswith("## "):
            out.append(Markup("<h4>{}</h4>").format(lines[0][3:].strip()))
            lines = lines[1:]
        if lines:
            text = _CODE.sub(lambda m: f"\0{m.group(1)}\1", " ".join(lines))
            out.append(Markup("<p>{}</p>").format(
                Markup(str(escape(text)).replace("\0", "<code>").replace("\1", "</code>"))))
    return Markup("").join(out)


def rule_docs(codes: set[str]) -> dict[str, dict]:
    """Name, summary and rendered documentation of the rules with these codes."""
    from gpucompat.rules.lint import all_rules

    return {r.code: {"name": r.name, "summary": r.summary, "doc": doc_html(r.doc)}
            for r in all_rules() if r.code in codes}
