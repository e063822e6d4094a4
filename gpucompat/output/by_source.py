"""A check record regrouped by source: per Keras layer or PyTorch module, its ops on the GPU and
the CPU, the ops the delegate rejects and the findings on its ops (`check --group-by source`, the
HTML report's source tree)."""

from __future__ import annotations

UNATTRIBUTED = "(unattributed)"
TOP_LEVEL = "(top level)"


def shown_path(path: str | None) -> str:
    """A source path as people read it: the model's top level and unread names said in words."""
    if path is None:
        return UNATTRIBUTED
    return path or TOP_LEVEL


def groups(rec: dict) -> list[dict]:
    """One entry per source path, in the order its first op runs: `path` (None: unattributed),
    `kind`, `exact`, `framework`, op counts (`ops`, `gpu`, `cpu`), `nodes`, `rejected` (the op
    records the delegate rejects) and `findings` (those naming one of its ops, but not the
    findings that only report rejected ops: `rejected` says those op by op)."""
    out: dict[str | None, dict] = {}
    where: dict[tuple[int, int], str | None] = {}
    for op in rec["ops"]:
        src = op.get("source") or {}
        path = src.get("path")
        where[(op["subgraph"], op["index"])] = path
        g = out.get(path)
        if g is None:
            g = out[path] = {"path": path, "kind": src.get("kind"), "exact": src.get("exact", False),
                             "framework": src.get("framework"), "ops": 0, "gpu": 0, "cpu": 0, "nodes": [],
                             "rejected": [], "findings": []}
        g["ops"] += 1
        g["gpu" if op["placement"] == "gpu" else "cpu"] += 1
        g["nodes"].append([op["subgraph"], op["index"]])
        if not op["supported"]:
            g["rejected"].append(op)
    rejected = {(o["subgraph"], o["index"]) for g in out.values() for o in g["rejected"]}
    for f in rec["findings"]:
        nodes = [tuple(n) for n in f["nodes"] if tuple(n) in where]
        if nodes and all(n in rejected for n in nodes):
            continue  # the rejection itself: the group's rejected ops say it, node by node
        for path in dict.fromkeys(where[n] for n in nodes):
            out[path]["findings"].append(f)
    return list(out.values())


def label(g: dict) -> str:
    """The group's heading: its path, class and whether the path is a best reading."""
    kind = f" ({g['kind']})" if g["kind"] and g["path"] is not None else ""
    guess = " (best reading)" if g["path"] is not None and not g["exact"] else ""
    return shown_path(g["path"]) + kind + guess
