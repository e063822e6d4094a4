"""Node data for Google's Model Explorer (custom node data overlays, `GraphNodeData` in
model_explorer/node_data_builder.py): per op, keyed by its output tensor names (which Model
Explorer matches against each node's outputs), one value per overlay. Three overlays:
placement (1 = GPU, 0 = CPU), delegated partition (node-subset index, GPU ops only) and channel
padding (padded elements of the op's outputs)."""

from __future__ import annotations

import os

from gpucompat.errors import GpucompatError

GPU_COLOR, CPU_COLOR = "#4caf50", "#e53935"
OVERLAYS = ("placement", "partition", "padding")


def overlays(rec: dict) -> dict[str, dict]:
    """The three GraphNodeData documents of one model record."""
    waste = {(t["subgraph"], t["index"]): t["padded_elements"] - t["useful_elements"]
             for t in (rec["channel_padding"] or {}).get("tensors", [])}
    placement, partition, padding = {}, {}, {}
    for o in rec["ops"]:
        for out in o.get("outputs", []):
            key = out["name"] or f"{o['subgraph']}:{out['index']}"
            gpu = o["placement"] == "gpu"
            placement[key] = {"value": 1 if gpu else 0, "bgColor": GPU_COLOR if gpu else CPU_COLOR}
            if gpu and o["partition"] is not None:
                partition[key] = {"value": o["partition"]}
            padding[key] = {"value": waste.get((o["subgraph"], out["index"]), 0)}
    return {
        "placement": {"results": placement},
        "partition": {"results": partition},
        "padding": {"results": padding,
                    "gradient": [{"stop": 0, "bgColor": "#ffffff"}, {"stop": 1, "bgColor": "#ff9800"}]},
    }


def write_node_data(doc: dict, output: str | None, protect: tuple[str, ...]) -> None:
    """Print the overlays of the one checked model as {overlay: GraphNodeData}, or write each to
    its own file: OUTPUT (placement), OUTPUT-stem.partition.json, OUTPUT-stem.padding.json."""
    from gpucompat.output.destination import write_json

    if len(doc["models"]) != 1:
        raise GpucompatError("--format model-explorer takes exactly one model")
    if doc["models"][0]["error"]:
        return  # nothing to overlay; the check command reports the model's error
    data = overlays(doc["models"][0])
    if not output:
        write_json(data, None)
        return
    stem = os.path.splitext(output)[0]
    for name in OVERLAYS:
        path = output if name == "placement" else f"{stem}.{name}.json"
        write_json(data[name], path, protect)
