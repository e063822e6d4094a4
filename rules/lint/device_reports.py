"""DEV family, device reports: forms that public reports say a GPU family's runtime mishandles,
raised only for the families the user names (`check --device-family adreno,mali`).

Nothing here was measured by gpucompat: no such device is at hand. Each finding says so, cites the
report it rests on, and stays at warning; the reports are LiteRT's and LiteRT-LM's public issues
(reporter's device, runtime release and repro are in each). The project's own measurements (GPU005,
PREC408) come from LiteRT's accelerator on a software Vulkan device, which is no phone's GPU."""

from __future__ import annotations

from collections.abc import Iterator

from gpucompat.ir import Op
from gpucompat.rules.lint import Finding, Rule
from gpucompat.rules.support.forms import LONG_REDUCTION, reduced_elements

FAMILIES = ("adreno", "mali", "apple", "webgpu")


def parse_families(value: str | list[str], where: str) -> tuple[str, ...]:
    """The GPU families of a flag ("adreno,mali") or a config value (a string or a list); an
    unknown one is a usage error naming it."""
    from gpucompat.errors import GpucompatError

    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise GpucompatError(f"{where}: expected GPU families ({', '.join(FAMILIES)}), got {value!r}")
    chosen = tuple(dict.fromkeys(v.strip().lower() for v in items if v.strip()))
    unknown = [v for v in chosen if v not in FAMILIES]
    if unknown:
        raise GpucompatError(f"{where}: unknown GPU family {unknown[0]!r} (known: {', '.join(FAMILIES)})")
    return chosen

_TAIL = """
## Fix safety
Not applicable: a report, not a rewrite.
"""


def _doc(what: str, why: str, example: str, fix: str, report: str) -> str:
    return (f"## What it finds\n{what}\n\n## Why it matters on the GPU\n{why}\n\n## Example\n{example}\n\n"
            f"## How to fix\n{fix}\n{_TAIL}\n## References\n{report}\n")


def _gpu_ops(result, analyses, name: str) -> Iterator[Op]:
    """The delegated ops of type `name`."""
    for o in result.ops:
        if o.placement == "gpu" and o.op == name:
            yield analyses.model.graphs[o.subgraph].ops[o.index]


def _node(op: Op) -> tuple[int, int]:
    return op.graph.index, op.index


def _finding(code: str, families: tuple[str, ...], what: str, report: str, op_nodes: tuple) -> Finding:
    return Finding(code, "warning", f"{what} ({', '.join(families)}: reported in {report}; unverified here)", op_nodes)


def _drq_fully_connected_into_add(result, analyses) -> list[Finding]:
    out = []
    for op in _gpu_ops(result, analyses, "FULLY_CONNECTED"):
        x, w = op.input(0), op.input(1)
        if x is None or w is None or x.rank != 3 or not x.dtype_name.startswith("FLOAT"):
            continue
        if w.dtype_name != "INT8" or not op.outputs:
            continue
        adds = [c for c in op.outputs[0].consumers if c.name == "ADD"]
        if adds:
            out.append(_finding("DEV601", ("mali",),
                                f"subgraph {op.graph.index} op#{op.index} FULLY_CONNECTED with int8 weights on a "
                                f"rank-3 float input {list(x.shape)} feeds ADD op#{adds[0].index}: kernel creation "
                                f"fails and the whole GPU compilation with it",
                                "LiteRT#9277", (_node(op), _node(adds[0]))))
    return out


def _batched_depth_to_space(result, analyses) -> list[Finding]:
    return [_finding("DEV602", ("adreno",),
                     f"subgraph {op.graph.index} op#{op.index} DEPTH_TO_SPACE of batch {op.input(0).shape[0]}: the "
                     f"accelerator emits OpenCL source the driver cannot build",
                     "LiteRT#8459", (_node(op),))
            for op in _gpu_ops(result, analyses, "DEPTH_TO_SPACE")
            if op.input(0) is not None and op.input(0).rank == 4 and op.input(0).shape[0] > 1]


_SCORE_STEPS = {"MUL", "DIV", "ADD", "SUB"}  # scaling and masking between the scores and SOFTMAX


def _scores(softmax: Op, rank3: bool) -> Op | None:
    """The BATCH_MATMUL (of rank-3 operands when `rank3`) whose scores reach `softmax` through at
    most two scaling or masking ops; None when there is none."""
    frontier = [softmax.input(0)]
    for _ in range(3):
        producers = [t.producer for t in frontier if t is not None and t.producer is not None]
        for p in producers:
            if p.name == "BATCH_MATMUL" and (not rank3 or (p.input(0) is not None and p.input(0).rank == 3)):
                return p
        frontier = [i for p in producers if p.name in _SCORE_STEPS for i in p.present_inputs]
    return None


def _attention(result, analyses, rank3: bool) -> list[tuple[Op, Op]]:
    """(scores BATCH_MATMUL, SOFTMAX) pairs of attention on the GPU (at rank 3 only when `rank3`)."""
    pairs = ((_scores(sm, rank3), sm) for sm in _gpu_ops(result, analyses, "SOFTMAX"))
    return [(mm, sm) for mm, sm in pairs if mm is not None]


def _rank3_attention(result, analyses) -> list[Finding]:
    return [_finding("DEV603", ("adreno",),
                     f"subgraph {mm.graph.index} op#{mm.index} BATCH_MATMUL -> op#{sm.index} SOFTMAX: attention at "
                     f"rank 3 {list(mm.input(0).shape)}, miscomputed on Adreno 740 and 830 where the same attention at "
                     f"rank 4 tracks the CPU", "LiteRT#8619", (_node(mm), _node(sm)))
            for mm, sm in _attention(result, analyses, rank3=True)]


def _long_sum(result, analyses) -> list[Finding]:
    out = []
    for op in _gpu_ops(result, analyses, "SUM"):
        n = reduced_elements(op)
        if n >= LONG_REDUCTION:
            out.append(_finding("DEV604", FAMILIES,
                                f"subgraph {op.graph.index} op#{op.index} SUM adds {n} elements into each output in "
                                f"fp16: a total past 65504 becomes inf, then NaN downstream",
                                "LiteRT#9249", (_node(op),)))
    return out


def _fp16_transformer(result, analyses) -> list[Finding]:
    nodes = tuple(_node(sm) for _, sm in _attention(result, analyses, rank3=False))
    if not nodes:
        return []
    return [_finding("DEV605", ("apple", "webgpu", "adreno"),
                     f"attention on the GPU ({len(nodes)} SOFTMAX op(s) after BATCH_MATMUL) with the accelerator's "
                     f"default FLOAT16 activations: transformer decoders were reported to emit garbage until run with "
                     f"FLOAT32 activations", "LiteRT-LM#2992, LiteRT-LM#2814", nodes)]


def _for_families(code: str, families: tuple[str, ...], run):
    """`run`, when the check names one of `families` (result.options.device_families)."""

    def wrapped(result, analyses) -> list[Finding]:
        chosen = result.options.device_families
        return run(result, analyses) if chosen and set(chosen) & set(families) else []

    return wrapped


def _rule(code: str, name: str, families: tuple[str, ...], summary: str, doc: str, run) -> Rule:
    return Rule(code, name, "warning", summary, doc, _for_families(code, families, run), uses_analyses=True)


RULES = [
    _rule("DEV601", "mali-drq-fully-connected-add", ("mali",),
          "Mali: an int8-weight FULLY_CONNECTED on a rank-3 input feeding ADD fails kernel creation (reported).",
          _doc("A delegated FULLY_CONNECTED with int8 (dynamic-range quantized) weights on a rank-3 float input "
               "whose output an ADD reads: the residual `x + Linear(x)` of every transformer or conformer block "
               "quantized weight-only.",
               "On Mali (Pixel 8a, Mali-G610; LiteRT 2.1.3 and 2.1.5, ML Drift OpenCL) kernel creation fails with "
               "\"Unable to parse bc coord for BATCH axis\", and CompiledModel compilation fails as a whole. The "
               "same graph in float compiles and runs. Reported, not measured here.",
               "Linear(256 -> 256) on [1, 16, 256] with int8 channelwise weights, then `+ x`.",
               "Keep the weights float (or fp16) for a Mali build, or run the FULLY_CONNECTED at rank 2 (reshape "
               "[1, T, C] to [T, C] around it in the source model). Check on the device.",
               "https://github.com/google-ai-edge/LiteRT/issues/9277"),
          _drq_fully_connected_into_add),
    _rule("DEV602", "adreno-batched-depth-to-space", ("adreno",),
          "Adreno: a DEPTH_TO_SPACE with batch above 1 gets an OpenCL kernel the driver cannot build (reported).",
          _doc("A delegated DEPTH_TO_SPACE whose input has a batch above 1.",
               "On Adreno 620 (Pixel 5, native Qualcomm OpenCL; LiteRT 2.1.3 to 2.1.6, ML Drift OpenCL) the "
               "generated kernel source carries a stray string fragment, clBuildProgram fails and CompiledModel "
               "initialisation fails. Batch 1 works. Reported, not measured here.",
               "DEPTH_TO_SPACE (block 2) of a [4, 32, 32, 16] tensor.",
               "Export with batch 1 and loop over the batch in the app, or move the batch into the width "
               "(reshape) around the op in the source model. Check on the device.",
               "https://github.com/google-ai-edge/LiteRT/issues/8459"),
          _batched_depth_to_space),
    _rule("DEV603", "adreno-rank3-attention", ("adreno",),
          "Adreno: attention computed at rank 3 is miscomputed where rank 4 is right (reported).",
          _doc("A delegated SOFTMAX over attention scores that a BATCH_MATMUL computes on rank-3 tensors "
               "([heads, queries, dim]), possibly through a scale or a mask.",
               "On Adreno 740 and 830 (Galaxy S23 and S25; the classic GPU delegate on OpenCL, LiteRT 1.4.5) "
               "SAM 2.1's mask decoder with rank-3 attention is silently miscomputed (correlation 0.265 with the "
               "CPU); the same decoder with the attention at rank 4 ([1, heads, queries, dim]) tracks the CPU. "
               "Reported, not measured here.",
               "BATCH_MATMUL [8, 64, 32] x [8, 32, 64] -> MUL by 1/sqrt(32) -> SOFTMAX.",
               "Write the attention at rank 4 in the source model (keep a leading batch of 1 through the "
               "matmuls and the softmax); gpucompat has no rewrite for it yet. Check on the device.",
               "https://github.com/google-ai-edge/LiteRT/issues/8619"),
          _rank3_attention),
    _rule("DEV604", "fp16-sum-overflow", FAMILIES,
          "A long SUM accumulates in fp16 on ML Drift; totals past 65504 become inf, then NaN (reported).",
          _doc("A delegated SUM that adds 1,024 or more elements into each output (the same size PREC408's "
               "calibrated form calls long).",
               "ML Drift's SUM accumulates in fp16 at the default precision: EfficientNet's squeeze-and-excite "
               "pooling (SUM over H x W) returned all-NaN classifiers on Apple M4 Max and iPhone 17 Pro (LiteRT "
               "2.1.5, Metal) while the CPU was right. Whether a given model overflows depends on its values: "
               "`gpucompat check --inputs` (PREC404) and `gpucompat verify --precision fp16` tell on your data.",
               "SUM over axes 1 and 2 of [1, 112, 112, 32] activations around 5.",
               "Use MEAN (or scale before the SUM) in the source model, or run with fp32 activations "
               "(GpuOptions(enforce_f32=True)).",
               "https://github.com/google-ai-edge/LiteRT/issues/9249"),
          _long_sum),
    _rule("DEV605", "fp16-activations-transformer", ("apple", "webgpu", "adreno"),
          "Transformer decoders with FLOAT16 activations were reported to emit garbage on Metal, WebGPU and "
          "Adreno (reported).",
          _doc("A model with attention on the GPU (a SOFTMAX reading BATCH_MATMUL scores): a transformer.",
               "LiteRT-LM users report decoders whose text turns to garbage (`<unk>` floods, corrupted digits) "
               "with the GPU's default FLOAT16 activations on Apple Metal, on the WebGPU delegate and on Adreno "
               "through OpenCL, cured by FLOAT32 activations alone. Reported, not measured here.",
               "A Gemma or Qwen-family decoder exported with litert-torch, run with Backend.GPU().",
               "Run with FLOAT32 activations (LiteRT-LM activation_data_type FLOAT32, or GpuOptions("
               "enforce_f32=True)); measure fp16 on your prompts with `gpucompat verify --precision fp16`.",
               "https://github.com/google-ai-edge/LiteRT-LM/issues/2992, "
               "https://github.com/google-ai-edge/LiteRT-LM/issues/2814"),
          _fp16_transformer),
]
