"""GPU family: ops the delegate does not take, and failures that stop the whole delegation."""

from __future__ import annotations

from collections import defaultdict

from gpucompat.rules.lint import Finding, Rule

UNSUPPORTED_OP_DOC = """\
## What it finds
Ops the delegate rejects when it partitions the graph (no GPU implementation, a version above the
parser's cap, an unsupported parameter, or a runtime tensor type the GPU does not take).

## Why it matters on the GPU
A rejected op runs on the CPU. It splits the graph: every split costs a synchronous CPU<->GPU
round trip per inference, and with the default `max_delegated_partitions=1` only the largest GPU
partition is delegated at all.

## Example
`GATHER_ND` between two convolutions: `op code #107 GATHER_ND: Operation is not supported.`

## How to fix
Replace the op with supported ones in the source model, or run `gpucompat fix`, which substitutes
equivalents where one exists. `gpucompat check` prints what accepting each rejected op would gain.

## Fix safety
Depends on the rewrite; see `gpucompat fix --dry-run`.

## References
tflite/delegates/gpu/common/model_builder.cc (GetOpsToReplace, IsAllAllowedTensors);
tflite/tools/versioning/gpu_compatibility.cc.
"""

DELEGATION_FAILS_DOC = """\
## What it finds
Ops the delegate accepts when partitioning but cannot build: a Parse-time rejection (identical
inputs to SUB/DIV/..., a runtime scalar, a non-constant parameter) or a missing kernel on the
chosen backend.

## Why it matters on the GPU
The delegate's kernel fails to initialise, the interpreter restores the original execution plan,
and every op of the model runs on the CPU: "Restored original execution plan after delegate
application failure."

## Example
`SUB(x, x)` in the delegated partition: "No support of few identical inputs in the same operation."

## How to fix
Rewrite the op in the source model (e.g. `x - x` as a constant zero) or choose a backend that has
the kernel.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/delegate.cc (DelegateKernelCore::Setup), tflite/core/subgraph.cc.
"""

DYNAMIC_DOC = """\
## What it finds
A tensor whose shape is only known while the model runs (a RESHAPE whose shape is computed at
runtime, WHERE, ...).

## Why it matters on the GPU
The GPU delegate supports only static-sized tensors: the interpreter refuses to apply it, so
nothing in that subgraph runs on the GPU.

## Example
`RESHAPE(x, PACK(STRIDED_SLICE(SHAPE(x)), ...))` from a model exported with a dynamic batch.

## How to fix
`gpucompat fix --unsafe-fixes` (or `--input-shape NAME=1,224,224,3`) applies `freeze-shapes`:
the batch becomes 1 (other dynamic dimensions are named with `--input-shape`), every tensor gets
its static shape and the shape computation folds into constants. Or export with a fixed batch
size (a concrete input signature) so that the converter folds it.

## Fix safety
signature: the fixed model accepts the frozen input shape only. It is verified against the
original run at that shape. A shape that depends on input values (WHERE, a RESHAPE to a shape
computed from the data) cannot be frozen: the rewrite refuses and names the op.

## References
tflite/core/subgraph.cc ModifyGraphWithDelegateImpl.
"""


FP16_WEIGHTS_DOC = """\
## What it finds
Constant fp16 weights read through DEQUANTIZE nodes (what the converter writes for float16
quantization, and for Keras fp16 exports).

## Why it matters on the GPU
It costs nothing. The delegate's FP16 partition helper leaves these DEQUANTIZE nodes out of the
partitioning and lets their consumers read the fp16 constants directly. When every other op of
the subgraph is supported, the DEQUANTIZE nodes are delegated with the graph in one kernel;
otherwise they stay on the CPU, where each runs once (the kernel dequantizes a constant input a
single time) and holds no delegated op back. In that case the runtime lists DEQUANTIZE among the
ops it does not support, with no reason, and `check` lists it the same way.

## Example
`DEQUANTIZE(conv_weights_fp16) -> CONV_2D`: both run in the GPU kernel of a fully supported model.

## How to fix
Nothing to fix. `gpucompat fix` folds them into float32 constants if a tool downstream needs it.

## Fix safety
Not applicable.

## References
tflite/delegates/utils.cc FP16GraphPartitionHelper (IsNodeSupported,
GetNodesOfFirstNLargestPartitionsImpl); tflite/kernels/dequantize.cc.
"""


def _fp16_weights(result, analyses) -> list[Finding]:
    out = []
    for s in result.subgraphs:
        nodes = tuple((s.index, i) for i in s.fp16_dequantize)
        if not nodes:
            continue
        on_gpu = sum(1 for o in result.ops if o.subgraph == s.index and o.index in s.fp16_dequantize
                     and o.placement == "gpu")
        where = ("delegated with the graph" if on_gpu == len(nodes) else
                 "left on the CPU because not every other op is supported; each runs once and holds no "
                 "delegated op back")
        out.append(Finding("GPU004", "info",
                           f"subgraph {s.index}: {len(nodes)} constant fp16 DEQUANTIZE node(s) feed fp16 weights; "
                           f"the delegate reads those weights directly, and the nodes are {where}", nodes))
    return out


def _unsupported(result, analyses) -> list[Finding]:
    groups: dict[tuple, list[tuple[int, int]]] = defaultdict(list)
    for o in result.ops:
        v = o.verdict
        if not v.ok and v.layer == "partition":
            groups[(o.op, o.opcode, v.reason)].append((o.subgraph, o.index))
    return [Finding("GPU001", "error", f"op code #{code} {op}: {reason} ({len(nodes)} op(s) run on the CPU)",
                    tuple(nodes))
            for (op, code, reason), nodes in groups.items()]


def _delegation_fails(result, analyses) -> list[Finding]:
    return [Finding("GPU002", "error",
                    f"op code #{o.opcode} {o.op} fails when the GPU graph is built ({o.verdict.layer}): "
                    f"{o.verdict.reason} - the whole delegation fails and every op runs on the CPU",
                    ((o.subgraph, o.index),))
            for o in result.delegation_failure]


def _dynamic(result, analyses) -> list[Finding]:
    return [Finding("GPU003", "error", f"subgraph {s.index}: {s.gate} - nothing in this subgraph is delegated")
            for s in result.subgraphs if s.gate]


UNPREPARABLE_DOC = """\
## What it finds
An op the interpreter cannot prepare at the model's stored input shapes: a VALID convolution or
pooling window wider than its input, operands that do not broadcast, a RESHAPE or
FULLY_CONNECTED whose element counts do not divide. Typical of a model whose input signature has
a dynamic (-1) dimension stored as 1, such as an audio model stored as [1, 1].

## Why it matters on the GPU
The runtime prepares every op before a delegate sees the graph. The prepare fails, so the model
cannot run at all at that shape, on the GPU or the CPU ("Node number N (OP) failed to prepare.").
A window that fits its input exactly nowhere gives an output 0 wide instead: prepare accepts it,
and LiteRT's GPU accelerator then crashes compiling the model (litert-mldrift).

## Example
Input [1, 1] (signature [-1, -1]) -> EXPAND_DIMS -> CONV_2D with a 512-wide VALID kernel.

## How to fix
Run the model at the shape the app feeds: `gpucompat fix --input-shape NAME=1,16000` freezes the
input at that shape (freeze-shapes), and `check` then judges the frozen model. Or export with
a concrete input signature.

## Fix safety
signature: the fixed model accepts the frozen input shape only.

## References
tflite/core/subgraph.cc PrepareOpsStartingAt; tflite/kernels/padding.h ComputeOutSize.
"""


def _unpreparable(result, analyses) -> list[Finding]:
    f = result.prepare_failure
    if f is None:
        return []
    names = " ".join(f"--input-shape {name}=..." for name in f.dynamic_inputs)
    what = ("has an output without elements at the stored input shapes: {}. The GPU accelerator crashes "
            "compiling the model at that shape" if f.empty else
            "cannot be prepared at the stored input shapes: {}. The model cannot run at all at that shape "
            f"({f.runtime_message})").format(f.reason)
    how = (f"freeze it at the shape the app feeds: `gpucompat fix {names}`" if f.dynamic_inputs else
           "no input has a dynamic dimension, so the model itself is malformed: re-export it")
    return [Finding("GPU006", "error", f"op#{f.index} {f.op} {what}; {how}", ((f.subgraph, f.index),))]


RULES = [
    Rule("GPU001", "unsupported-op", "error", "An op the GPU delegate rejects runs on the CPU.",
         UNSUPPORTED_OP_DOC, _unsupported),
    Rule("GPU002", "delegation-fails", "error",
         "An accepted op fails when the GPU graph is built: the whole model runs on the CPU.",
         DELEGATION_FAILS_DOC, _delegation_fails),
    Rule("GPU003", "dynamic-tensor", "error", "A dynamic-sized tensor stops delegation of its subgraph.",
         DYNAMIC_DOC, _dynamic, fix="freeze-shapes"),
    Rule("GPU004", "fp16-weights", "info",
         "Constant fp16 weights read through DEQUANTIZE: read directly by the delegate, they hold nothing back.",
         FP16_WEIGHTS_DOC, _fp16_weights),
    Rule("GPU006", "unpreparable", "error",
         "An op cannot be prepared at the stored input shapes: the model cannot run at all.",
         UNPREPARABLE_DOC, _unpreparable, fix="freeze-shapes"),
]
