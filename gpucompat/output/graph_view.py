"""The HTML report's graph: each subgraph's dataflow laid out in layers, as data the page draws.

Three views of a subgraph: its ops (up to OPS_DRAWN of them), its node subsets (one box per
partition, GPU or CPU, in the order the runtime forms them) and, when the ops have sources, one
box per source layer or module. A box of ops is coloured by where its ops run (gpu, spare, cpu)
and marked wrong or unmeasured when a delegated op's form is known wrong or was never measured on
the real GPU. Edges follow tensors from producer to reader; an edge between two partitions is a
boundary (a CPU<->GPU copy when one side is delegated).

The layout is done here, once: a box's layer is the longest path to it from the inputs, and the
boxes of a layer are ordered by the mean position of their producers (one sweep down the layers),
so the page only places rectangles."""

from __future__ import annotations

from collections import defaultdict

from gpucompat.output.html_view import CPU, GPU, SPARE, op_kind
from gpucompat.rules.lint.calibrated_forms import UNMEASURED_CODES, WRONG_CODES

OPS_DRAWN = 3000  # above this many ops a subgraph is drawn collapsed only (the ops view would be unreadable)
WRONG, UNMEASURED = "wrong", "unmeasured"


def graph_data(rec: dict, changed: set[tuple[int, int]] = frozenset()) -> list[dict]:
    """Per subgraph with ops: its `index`, `name`, `ops` (how many), `views` (`ops` when it has at
    most OPS_DRAWN, `partitions`, and `sources` when its ops have them), each view {`nodes`,
    `edges`}: a node is [label, kind, layer, position, ops (their indices), counts by kind,
    changed], an
    edge [from, to, boundary]; and `findings` (per op index, the findings naming it). `changed`:
    the ops a fix wrote (marked, and a box holding one marked)."""
    marks = _marks(rec)
    out = []
    for sg in rec["subgraphs"]:
        ops = [o for o in rec["ops"] if o["subgraph"] == sg["index"]]
        if not ops:
            continue
        producers = _producers(ops)
        views = {"partitions": _collapsed(ops, producers, marks, changed, _partition_key(sg))}
        if len(ops) <= OPS_DRAWN:
            views["ops"] = _collapsed(ops, producers, marks, changed, lambda o: o["index"], each_op=True)
        if any((o.get("source") or {}).get("path") is not None for o in ops):
            views["sources"] = _collapsed(ops, producers, marks, changed, _source_key)
        out.append({"index": sg["index"], "name": sg["name"], "ops": len(ops), "views": views,
                    "findings": _findings(rec, sg["index"])})
    return out


def _findings(rec: dict, subgraph: int) -> dict[int, list[str]]:
    """Per op of the subgraph, the findings naming it (code and message), for its card."""
    out: dict[int, list[str]] = defaultdict(list)
    for f in rec["findings"]:
        for g, i in f["nodes"]:
            if g == subgraph:
                out[i].append(f"{f['code']} {f['severity']}: {f['message'][:400]}")
    return dict(out)


def _marks(rec: dict) -> dict[tuple[int, int], str]:
    """wrong / unmeasured per delegated op a finding names."""
    marks: dict[tuple[int, int], str] = {}
    for f in rec["findings"]:
        mark = WRONG if f["code"] in WRONG_CODES else UNMEASURED if f["code"] in UNMEASURED_CODES else None
        for n in f["nodes"] if mark else ():
            if marks.get(tuple(n)) != WRONG:
                marks[tuple(n)] = mark
    return marks


def _producers(ops: list[dict]) -> dict[int, list[int]]:
    """Each op's producers (op indices) through its input tensors."""
    writer = {t["index"]: o["index"] for o in ops for t in o.get("outputs", [])}
    return {o["index"]: list(dict.fromkeys(writer[t["index"]] for t in o.get("inputs", []) if t["index"] in writer))
            for o in ops}


def _partition_key(sg: dict):
    subsets = sg["node_subsets"]

    def key(op: dict):
        part = op["partition"]
        if part is None:
            return ("none",)
        sub = subsets[part]
        chosen = " delegated" if sub["delegated"] else ""
        return (part, f"[{part}] {sub['type'].upper()} {len(sub['nodes'])} op(s){chosen}")
    return key


def _source_key(op: dict):
    path = (op.get("source") or {}).get("path")
    return ("source", path if path is not None else None)


def _kind(op: dict, marks: dict) -> str:
    kind = op_kind(op)
    return marks.get((op["subgraph"], op["index"]), kind) if kind == GPU else kind


def _label(key, ops: list[dict], each_op: bool) -> str:
    if each_op:
        op = ops[0]
        return f"#{op['index']} {op.get('custom_code') or op['op']}"
    if key[0] == "source":
        return "(unattributed)" if key[1] is None else (key[1] or "(top level)")
    return key[1] if len(key) > 1 else "not partitioned"


def _collapsed(ops: list[dict], producers: dict[int, list[int]], marks: dict, changed: set, key,
               each_op: bool = False) -> dict:
    """The graph with the ops of one key in one box, laid out in layers."""
    boxes: dict = {}
    box_of: dict[int, int] = {}
    members: list[list[dict]] = []
    for op in ops:
        k = key(op)
        if k not in boxes:
            boxes[k] = len(members)
            members.append([])
        box_of[op["index"]] = boxes[k]
        members[boxes[k]].append(op)
    partition = {o["index"]: o["partition"] for o in ops}
    edges: dict[tuple[int, int], bool] = {}
    preds: dict[int, set[int]] = defaultdict(set)
    for op in ops:
        b = box_of[op["index"]]
        for p in producers[op["index"]]:
            a = box_of[p]
            if a != b:
                edges[(a, b)] = edges.get((a, b), False) or partition[p] != partition[op["index"]]
                preds[b].add(a)
    layer, position = _layout(len(members), preds)
    keys = list(boxes)
    nodes = []
    for i, group in enumerate(members):
        counts: dict[str, int] = defaultdict(int)
        for op in group:
            counts[_kind(op, marks)] += 1
        nodes.append([_label(keys[i], group, each_op), _dominant(counts), layer[i], position[i],
                      [op["index"] for op in group], dict(counts),
                      any((op["subgraph"], op["index"]) in changed for op in group)])
    return {"nodes": nodes, "edges": [[a, b, boundary] for (a, b), boundary in edges.items()]}


def _dominant(counts: dict[str, int]) -> str:
    """A box's colour: rejected ops first, then known-wrong, unmeasured, delegated, spare."""
    for kind in (CPU, WRONG, UNMEASURED, GPU, SPARE):
        if counts.get(kind):
            return kind
    return SPARE


def _layout(n: int, preds: dict[int, set[int]]) -> tuple[list[int], list[float]]:
    """Each box's layer (longest path from a box without producers; boxes come in a topological
    order, as the ops do, except where grouping makes a cycle: then the first box wins) and its
    position in the layer (under the mean position of its producers, moved right past the box
    placed before it)."""
    layer = [0] * n
    for b in range(n):
        before = [layer[a] for a in preds.get(b, ()) if a < b]
        layer[b] = max(before) + 1 if before else 0
    rows: dict[int, list[int]] = defaultdict(list)
    for b in range(n):
        rows[layer[b]].append(b)
    position = [0.0] * n
    for depth in sorted(rows):
        row = rows[depth]
        wanted = {b: (sum(position[a] for a in preds.get(b, ())) / len(preds[b]) if preds.get(b) else float(i))
                  for i, b in enumerate(row)}
        last = -1.0
        for b in sorted(row, key=lambda b: wanted[b]):
            position[b] = last = max(float(round(wanted[b])), last + 1)
    return layer, position


def written_by_fix(fixed: dict, before: dict) -> set[tuple[int, int]]:
    """The fixed model's ops that are not the original's: an op whose output tensor name the
    original has no op writing, or that writes it with another op type."""
    old = {(o["subgraph"], t["name"], o["op"]) for o in before["ops"] for t in o.get("outputs", [])}
    return {(o["subgraph"], o["index"]) for o in fixed["ops"]
            if not any((o["subgraph"], t["name"], o["op"]) in old for t in o.get("outputs", []))}
