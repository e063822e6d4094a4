"""Per-op support verdicts for a subgraph under a profile, in the runtime's order:
parser present -> version cap -> IsSupported checks -> IsAllAllowedTensors -> Parse -> backend.

Also the FP16 partition-helper rule (tflite/delegates/utils.cc FP16GraphPartitionHelper): a
DEQUANTIZE of a constant FLOAT16 tensor is left out of the partitioning (the runtime's
IsNodeSupported answers false for it), and its consumers are judged as if they read the FP16
constant directly. It is no rejection: the delegate takes those weights itself, and the node is
either delegated with the whole graph or left on the CPU where it runs once (gpucompat.placement).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpucompat.ir import Graph, Op, Tensor, dtypes, opcodes
from gpucompat.rules.support.context import Context
from gpucompat.rules.support.gl_measured import PREPARE_TIME
from gpucompat.rules.support.profile import Options, Profile
from gpucompat.rules.support.verdict import ACCEPT, Verdict, reject

DEQUANTIZE = opcodes.BUILTIN["DEQUANTIZE"]


@dataclass
class GraphVerdicts:
    """Verdicts for every op of one subgraph, plus the FP16 constant-DEQUANTIZE nodes."""

    verdicts: list[Verdict]
    fp16_dequantize: set[int]

    @property
    def supported(self) -> set[int]:
        """Indices of ops accepted at partitioning (parse/backend problems show up later); the
        FP16 constant-DEQUANTIZE nodes are not among them."""
        return partition_supported(self.verdicts, self.fp16_dequantize)


FP16_WEIGHTS_NOTE = ("constant FP16 DEQUANTIZE: the delegate reads the fp16 weights directly in its consumers; "
                     "delegated with the graph when every other op is supported, else left on the CPU, "
                     "where it runs once")


def partition_supported(verdicts: list[Verdict], fp16_dequantize: set[int]) -> set[int]:
    """The node indices the partitioner sees as supported: accepted ops, and ops that fail only
    later (Parse, backend); the FP16 constant-DEQUANTIZE nodes are left out."""
    return {i for i, v in enumerate(verdicts)
            if (v.ok or v.layer in ("parse", "backend")) and i not in fp16_dequantize}


def is_fp16_constant_dequantize(op: Op) -> bool:
    """A DEQUANTIZE whose input is a constant FLOAT16 tensor (fp16-weight models)."""
    if op.code.builtin != DEQUANTIZE:
        return False
    src = op.input(0)
    return src is not None and src.dtype == dtypes.FLOAT16 and src.is_constant


def judge_graph(graph: Graph, profile: Profile, options: Options) -> GraphVerdicts:
    """Judge every op of `graph` under `profile`."""
    fp16_nodes: set[int] = set()
    folded: dict[int, Tensor] = {}
    verdicts: list[Verdict] = []
    ctx = Context(options, folded)  # one view for the whole graph: `folded` grows as it goes
    for i, op in enumerate(graph.ops):
        if profile.fp16_dequantize_helper and is_fp16_constant_dequantize(op):
            fp16_nodes.add(i)
            folded[id(op.outputs[0])] = op.input(0)
            verdicts.append(Verdict(True, FP16_WEIGHTS_NOTE))
            continue
        verdicts.append(judge_op(op, profile, ctx))
    return GraphVerdicts(verdicts, fp16_nodes)


def judge_op(op: Op, profile: Profile, ctx: Context) -> Verdict:
    """The verdict for one op; `ctx` says which tensors count as constants."""
    options = ctx.options
    entry = profile.support(op)
    if entry is None or (entry.quant_only and not (options.allow_quant and profile.quant_ops)):
        if op.is_custom:
            return reject(f"custom op {op.name!r} has no GPU implementation in this delegate",
                          runtime_message=op.name)
        why = "needs quantized ops enabled" if entry is not None else "no GPU implementation of this op"
        return reject(why, runtime_message=profile.unsupported_message.format(opcode=op.builtin))
    if options.backend == "gl" and op.builtin in profile.excluded_without_opencl:
        return reject("excluded when OpenCL is unavailable (the OpenGL backend has no kernel for it)",
                      runtime_message=profile.unsupported_message.format(opcode=op.builtin))
    if entry.max_version is not None and op.version > entry.max_version:
        return reject(f"op version {op.version} is above the supported maximum {entry.max_version}",
                      runtime_message=f"Max version supported: {entry.max_version}. Requested version {op.version}.")
    failures = [v for check in entry.checks if not (v := check(op, ctx)).ok]
    for v in failures:
        if v.layer == "partition":
            return v
    tensor_verdict = allowed_tensors(op, profile, entry, ctx)
    if not tensor_verdict.ok:
        return tensor_verdict
    if failures:
        return failures[0]
    if entry.backends is not None and options.backend not in entry.backends:
        return reject(f"no kernel on the {options.backend} backend", "backend")
    return ACCEPT


def allowed_tensors(op: Op, profile: Profile, entry, ctx: Context) -> Verdict:
    """IsAllAllowedTensors: rank at most `max_rank` for every tensor; runtime tensors of an
    allowed type (FLOAT32/FLOAT16, INT8/UINT8 with quantized ops, per-op extras)."""
    quant = ctx.options.allow_quant and profile.quant_ops
    runtime_types, quant_types = profile.runtime_types, profile.quant_types if quant else ()
    max_rank = profile.max_rank
    for tensors, extra in ((op.inputs, entry.input_types), (op.outputs, entry.output_types)):
        for t in tensors:
            if t is None:
                continue
            if len(t.shape) > max_rank:
                return reject(f"tensor {t.name!r} has rank {t.rank} (at most {profile.max_rank} is supported)",
                              runtime_message=profile.rank_message.format(
                                  limit=profile.max_rank + 1, type=t.dtype_name, name=display_name(t)))
            dtype = t.dtype
            if dtype in runtime_types:  # the common case, asked first
                continue
            if dtype not in quant_types and dtype not in extra and not ctx.is_const(t) \
                    and not (profile.prepare_time_ints_on_gl and ctx.options.backend == "gl"
                             and ctx.at_prepare(t, PREPARE_TIME)):
                return reject(f"tensor {t.name!r} is {t.dtype_name}, which the GPU does not take at runtime",
                              runtime_message=profile.type_message.format(
                                  limit=profile.max_rank + 1, type=t.dtype_name, name=display_name(t)))
    return ACCEPT


def display_name(t: Tensor) -> str:
    """The name LiteRT prints for a tensor: its signature name ("args_0", "output_0") when a
    signature def maps it, else its tensor name (observed with ai-edge-litert 2.3.0)."""
    for rec, tensor in t.graph.model.signature_links:
        if tensor is t:
            name = rec.name
            return name.decode("utf-8", "replace") if isinstance(name, bytes) else (name or "")
    return t.name
