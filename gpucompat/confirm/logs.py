"""What LiteRT's GPU accelerator says about a model, read from its log lines.

Every runtime wording gpucompat relies on is here, so a new LiteRT release is one place to
update. The lines come from ai-edge-litert 2.3.0 (ML Drift WebGPU accelerator, tflite minimal
logger at VERBOSE; tests/test_confirm.py holds captured samples):

  tflite/delegates/utils.cc GraphPartitionHelper / delegate kernels:
    "ERROR: Following operations are not supported by GPU delegate:"  then one "OP: reason"
    line per rejected op type ("CUSTOM code: reason" for custom ops), then
    "N operations will run on the GPU, and the remaining M operations will run on the CPU."
    or "No operations will run on the GPU, and all M operations will run on the CPU."
  tflite/core/subgraph.cc ReplaceNodeSubsetsWithDelegateKernels (VERBOSE):
    "Replacing X out of Y node(s) with delegate (NAME) node, yielding N partitions for subgraph S (name)."
  tflite/core/subgraph.cc ModifyGraphWithDelegate, the dynamic-tensor gate:
    "Attempting to use a delegate that only supports static-sized tensors with a graph that has
    dynamic-sized tensors (tensor#T is a dynamic-sized tensor)."  (T is -1 when no single tensor
    is to blame; the line is printed once per process)
  tflite/core/subgraph.cc op resolution: "Encountered unresolved custom op: NAME."
  tflite/core/subgraph.cc PrepareOpsStartingAt: "Node number N (OP) failed to prepare." after
    the kernel's own "ERROR: ..." line
  absl CHECK in the GPU model builder (aborts the process): "Check failed: ..."
  ML Drift's kernel build, when it fails after partitioning (then "Failed to initialize
    kernel." and the whole compile fails): "Failed to create litert::ml_drift::DelegateKernelLiteRt:
    INVALID_ARGUMENT: Unable to parse bc coord for BATCH axis. ..." (delegate_webgpu.cc)
  Dawn adapter selection: "Selected adapter: ..." or "No adapters found".
  Dawn's uncaptured device errors (environment.cc), while the model compiles or runs:
    "Validation error: Error while parsing WGSL: :41:3 error: cannot initialize 'var' of type
    'vec4<f32>' with value of type 'vec4<f16>'" (then the code line, and "[Invalid ShaderModule
    (unlabeled)] is invalid due to a previous error." for each object built on it, down to the
    rejected queue submission); also "Out of memory: ...", "Internal error: ...", "Unknown error: ...".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

XNNPACK = "TfLiteXNNPackDelegate"

_REPLACING = re.compile(r"Replacing (\d+) out of (\d+) node\(s\) with delegate \((\S+)\) node, "
                        r"yielding (\d+) partitions for subgraph (\d+)")
_LISTING = "Following operations are not supported by GPU delegate:"
_LISTED_OP = re.compile(r"^(?:CUSTOM (\S+)|([A-Z][A-Z0-9_]*)): ?(.*)$")
_SPLIT = re.compile(r"operations? will run on the GPU")
_DYNAMIC = re.compile(r"only supports static-sized tensors .*\(tensor#(-?\d+) is a dynamic-sized tensor\)")
_UNRESOLVED = re.compile(r"Encountered unresolved custom op: (.*?)\.?$")
_PREPARE_FAILED = re.compile(r"Node number \d+ \(\S+\) failed to prepare\.")
_CHECK_FAILED = re.compile(r"Check failed: (.*)$")
_KERNEL_FAILED = re.compile(r"Failed to create \S*DelegateKernel\S*: (.*)$")
_ADAPTER = re.compile(r"Selected adapter: (.*)$")
_NO_ADAPTER = ("No adapters found", "Failed to initialize WebGPU environment")
_DEVICE_ERROR = re.compile(r"\] (?:Validation error: |(Out of memory: |Internal error: |Unknown error: ))(.*)$")
_FOLLOWS_ERROR = "is invalid due to a previous error"


@dataclass
class LogFacts:
    """The delegation facts one compilation logged."""

    gpu_ops: dict[int, int] = field(default_factory=dict)  # subgraph -> nodes the GPU delegate replaced
    ops_seen: dict[int, int] = field(default_factory=dict)  # subgraph -> nodes it looked at
    partitions: dict[int, int] = field(default_factory=dict)  # subgraph -> "yielding N partitions" (CPU and GPU)
    cpu_delegate_ops: dict[int, int] = field(default_factory=dict)  # subgraph -> nodes XNNPACK replaced
    delegate: str | None = None  # the GPU delegate's name in the "Replacing" lines
    rejected: dict[str, list[str]] = field(default_factory=dict)  # op type -> its reasons
    dynamic_gate: bool = False  # the static-size gate stopped the delegate
    dynamic_tensor: int | None = None  # the tensor it names (-1: none in particular)
    unresolved_custom_ops: list[str] = field(default_factory=list)
    prepare_failure: str | None = None  # a node that failed to prepare, with the kernel's words
    check_failure: str | None = None  # an aborting CHECK
    kernel_failure: str | None = None  # why the delegate kernel could not be built, in the runtime's words
    adapter: str | None = None  # the GPU device the accelerator selected
    no_device: str | None = None  # why no GPU device could be used, in the runtime's words
    device_errors: list[str] = field(default_factory=list)  # the device's own errors, not those following from them


def parse(lines: list[str]) -> LogFacts:
    """Read the delegation facts from one compilation's log lines, in order.

    GPU ops per subgraph come from the first non-XNNPACK "Replacing" line of each subgraph:
    control-flow bodies are prepared again later and log the same line again, and the
    "N operations will run on the GPU" line is printed only for subgraphs not taken whole."""
    facts = LogFacts()
    listing = False
    before = ""  # the previous ERROR message: the kernel's reason for a failed prepare (some give none)
    for line in lines:
        text, reason = _strip_prefix(line), before
        before = text.strip() if line.startswith("ERROR: ") else ""
        if _PREPARE_FAILED.search(text):
            facts.prepare_failure = facts.prepare_failure or f"{text.strip()} {reason}".strip()
            continue
        if listing:
            m = _LISTED_OP.match(text)
            if m and not _SPLIT.search(text):
                op = m.group(1) or m.group(2)
                reasons = facts.rejected.setdefault(op, [])
                if m.group(3).strip() not in reasons:
                    reasons.append(m.group(3).strip())
                continue
            listing = False
        if _LISTING in text:
            listing = True
        elif m := _REPLACING.search(text):
            _replacing(facts, m)
        elif m := _DYNAMIC.search(text):
            if not facts.dynamic_gate:
                facts.dynamic_gate, facts.dynamic_tensor = True, int(m.group(1))
        elif m := _UNRESOLVED.search(text):
            if m.group(1) not in facts.unresolved_custom_ops:
                facts.unresolved_custom_ops.append(m.group(1))
        elif m := _CHECK_FAILED.search(text):
            facts.check_failure = facts.check_failure or m.group(1).strip()
        elif m := _KERNEL_FAILED.search(text):
            facts.kernel_failure = facts.kernel_failure or m.group(1).strip()
        elif m := _ADAPTER.search(text):
            facts.adapter = m.group(1).strip()
        elif any(s in text for s in _NO_ADAPTER):
            facts.no_device = text.strip()
        elif (m := _DEVICE_ERROR.search(text)) and _FOLLOWS_ERROR not in text:
            facts.device_errors.append(f"{m.group(1) or ''}{m.group(2).strip()}")
    return facts


def _replacing(facts: LogFacts, m: re.Match) -> None:
    replaced, total, delegate, partitions, subgraph = m.groups()
    if delegate == XNNPACK:
        facts.cpu_delegate_ops.setdefault(int(subgraph), int(replaced))
        return
    facts.delegate = facts.delegate or delegate
    if int(subgraph) not in facts.gpu_ops:
        facts.gpu_ops[int(subgraph)] = int(replaced)
        facts.ops_seen[int(subgraph)] = int(total)
        facts.partitions[int(subgraph)] = int(partitions)


def _strip_prefix(line: str) -> str:
    """The message without the minimal logger's "LEVEL: " prefix."""
    for level in ("VERBOSE: ", "INFO: ", "WARNING: ", "ERROR: "):
        if line.startswith(level):
            return line[len(level):]
    return line
