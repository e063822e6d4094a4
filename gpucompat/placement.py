"""`check`: judge every op, apply the subgraph gates, simulate partitioning and delegation, and
collect the result of one model under one profile."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from gpucompat.dynamic import first_dynamic_tensor
from gpucompat.ir import Model
from gpucompat.ir.signatures import signatures
from gpucompat.partition import NodeSubset, largest, node_subsets, supported_prefix
from gpucompat.prepare import PrepareFailure, prepare_failure
from gpucompat.rules.support.judging import judge_graph
from gpucompat.rules.support.profile import Options, Profile
from gpucompat.rules.support.verdict import Verdict, reject

NO_LOAD = "the model cannot be loaded at all"  # how a failure says the runtime never loads the model


@dataclass(slots=True)  # one per op: tens of thousands
class OpResult:
    """Where one op runs and why."""

    subgraph: int
    index: int
    op: str
    opcode: int
    custom_code: str | None
    version: int
    verdict: Verdict
    placement: str = "cpu"
    partition: int | None = None  # index of the node subset that holds it (delegated or not)


@dataclass
class SubgraphResult:
    """Partitioning of one subgraph."""

    index: int
    name: str
    ops_total: int
    subsets: list[NodeSubset] = field(default_factory=list)
    delegated: list[int] = field(default_factory=list)  # indices into `subsets`
    replaced: int = 0  # nodes handed to the delegate
    after_replace: list[NodeSubset] = field(default_factory=list)  # the subsets once the chosen nodes are replaced
    gate: str | None = None  # why nothing here is delegated (dynamic tensors)
    topology_problem: str | None = None
    full_fp16_override: bool = False
    fp16_dequantize: list[int] = field(default_factory=list)  # constant FP16 DEQUANTIZE nodes (FP16 helper)
    blocked: str | None = None  # delegation never reached this subgraph (an earlier one was gated)
    signatures: tuple[str, ...] = ()  # the signatures that run it (an LLM export's prefill_8, decode)

    @property
    def fp16_dequantize_listed(self) -> list[int]:
        """The constant FP16 DEQUANTIZE nodes the runtime lists among the ops it does not support
        (with an empty reason) when it partitions the subgraph: every one, unless the FP16 helper
        takes the subgraph whole (then it prints no list) or a dynamic tensor stops it first.
        They run on the CPU once and hold no delegated op back."""
        return [] if self.full_fp16_override or self.gate else self.fp16_dequantize

    @property
    def partitions_after_replace(self) -> int:
        """The runtime's "yielding N partitions": every subset, CPU and GPU, after replacement."""
        return len(self.after_replace)


@dataclass
class ModelResult:
    """Everything `check` knows about one model under one profile."""

    path: str
    profile: Profile
    options: Options
    ops: list[OpResult]
    subgraphs: list[SubgraphResult]
    delegation_failure: list[OpResult] = field(default_factory=list)  # parse/backend rejections
    failure: str | None = None  # why the whole model gets no GPU at all (gate, load failure), else None
    prepare_failure: PrepareFailure | None = None  # the op the interpreter cannot prepare at the stored shapes
    backend_used: str | None = None  # the backend the delegate ends up on (after a fallback)

    @property
    def cannot_load(self) -> bool:
        """True when the runtime cannot even load the model: no op is judged on any delegate."""
        return self.failure is not None and NO_LOAD in self.failure

    @property
    def delegation_fails(self) -> bool:
        """True when delegate application fails and every op runs on the CPU."""
        return bool(self.delegation_failure) or self.failure is not None

    @property
    def ops_total(self) -> int:
        return len(self.ops)

    @property
    def ops_gpu(self) -> int:
        return sum(1 for o in self.ops if o.placement == "gpu")

    @property
    def ops_cpu(self) -> int:
        return self.ops_total - self.ops_gpu

    @property
    def partitions_total(self) -> int:
        """Sum over subgraphs of the runtime's "yielding N partitions" counts."""
        return sum(s.partitions_after_replace for s in self.subgraphs)

    @property
    def partitions_delegated(self) -> int:
        """Delegate kernels the runtime would create."""
        if self.delegation_fails:
            return 0
        return sum(len(s.delegated) for s in self.subgraphs)

    @property
    def fully_delegated(self) -> bool:
        return self.ops_total > 0 and self.ops_gpu == self.ops_total


def check_model(model: Model, profile: Profile, options: Options) -> ModelResult:
    """Simulate the delegate on every subgraph of `model`."""
    ops: list[OpResult] = []
    subgraphs: list[SubgraphResult] = []
    signed = signatures(model)
    for g in model.graphs:
        gv = judge_graph(g, profile, options)
        base = len(ops)
        gi = g.index  # a search of the model's graphs: asked once, not per op
        for i, (op, verdict) in enumerate(zip(g.ops, gv.verdicts)):
            code = op.code
            ops.append(OpResult(gi, i, code.name, code.builtin, code.custom if op.is_custom else None,
                                code.version, verdict))
        sr = SubgraphResult(gi, g.name, len(g.ops), fp16_dequantize=sorted(gv.fp16_dequantize),
                            signatures=tuple(name for name, index in signed if index == gi))
        subgraphs.append(sr)
        sr.topology_problem = g.topological_problem()
        dyn = first_dynamic_tensor(g) if profile.dynamic_gate else None
        if dyn is not None:
            op, t = dyn
            sr.gate = (f"tensor#{t.index} {t.name!r} (output of op#{op.index} {op.name}) becomes dynamic, "
                       f"and the delegate only supports static-sized tensors")
        if sr.topology_problem or not g.ops:
            continue
        supported = gv.supported
        sr.subsets = node_subsets(g, supported)
        if sr.gate:
            continue
        chosen = choose_nodes(g, sr, supported, gv.fp16_dequantize, profile, options)
        for i in chosen:
            ops[base + i].placement = "gpu"
        sr.replaced = len(chosen)
        sr.after_replace = after_replace(g, sr, supported, chosen, gv.fp16_dequantize)
        for si, s in enumerate(sr.subsets):
            for n in s.nodes:
                ops[base + n].partition = si
    result = ModelResult(model.path or "", profile, options, ops, subgraphs, backend_used=options.backend)
    _apply_failures(model, result)
    return result


def _apply_failures(model: Model, result: ModelResult) -> None:
    """What a gate or a failed kernel build does to the other subgraphs.

    Interpreter (tflite/interpreter.cc ModifyGraphWithDelegateImpl): subgraphs are delegated in
    index order and the loop stops at the first failure; a gated subgraph returns
    kTfLiteApplicationError, so earlier subgraphs keep their kernels and it and later ones get
    none; a delegate failure (Parse/backend) returns kTfLiteDelegateError, which removes every
    delegate: the whole model runs on the CPU.
    LiteRT CompiledModel (`whole_model_failure`; observed with ai-edge-litert 2.3.0): either one
    fails the compilation of the whole model ("Failed to modify graph with delegate"), and so
    does a custom op the runtime does not register ("Encountered unresolved custom op"); before
    either, its model loader refuses variable tensors.
    Under every profile: an op the interpreter cannot prepare at the stored input shapes
    (gpucompat/prepare.py) stops the model before any delegate sees it; nothing runs at all. Under
    a profile that crashes on them, so does an op whose output has no elements, and a composite
    the profile knows crashes the kernel build (litert-torch's odml.* composites on ML Drift).
    """
    profile = result.profile
    found = prepare_failure(model.graphs[0]) if model.graphs else None
    result.prepare_failure = found if found is not None and (not found.empty or profile.crashes_on_empty_tensors) \
        else None
    unresolved = _unresolved_custom_op(model, profile)
    variable = None if profile.loads_variable_tensors else next(
        (t for g in model.graphs for t in g.tensors if t.is_variable), None)
    gated = next((s for s in result.subgraphs if s.gate), None)
    if gated is not None:
        for s in result.subgraphs:
            if s.index > gated.index:
                s.blocked = f"subgraph {gated.index} was gated before delegation reached this one"
                s.delegated, s.replaced, s.after_replace = [], 0, []
        for o in result.ops:
            if o.subgraph > gated.index:
                o.placement = "cpu"
    result.delegation_failure = [o for o in result.ops if o.placement == "gpu" and not o.verdict.ok
                                 and o.verdict.layer in ("parse", "backend")]
    _fall_back(model, result)
    if not result.delegation_failure and profile.one_batch_on_gl and result.backend_used == "gl":
        result.delegation_failure = _gl_partition_failures(model, result)
    if variable is not None:
        # litert/core/model/model_load.cc UnpackTensor: "Variable tensors not yet supported."
        result.failure = (f"tensor {variable.name!r} in subgraph {variable.graph.index} is a variable tensor (a "
                          f"stateful op's state): {NO_LOAD} (Variable tensors not yet supported)")
    elif unresolved is not None:
        result.failure = (f"custom op {unresolved!r} is not registered in the runtime: {NO_LOAD} "
                          f"(Encountered unresolved custom op)")
    elif result.prepare_failure is not None and result.prepare_failure.empty:
        f = result.prepare_failure
        result.failure = (f"op#{f.index} {f.op} in subgraph {f.subgraph} has an output without elements at the "
                          f"stored input shapes ({f.reason}): the GPU accelerator crashes compiling the model")
    elif result.prepare_failure is not None:
        f = result.prepare_failure
        result.failure = (f"op#{f.index} {f.op} in subgraph {f.subgraph} cannot be prepared at the stored input "
                          f"shapes ({f.reason}): the model cannot run at all ({f.runtime_message})")
    elif (crash := _crashing_composite(model, profile)) is not None:
        op, name = crash
        result.failure = (f"op#{op.index} STABLEHLO_COMPOSITE {name!r} in subgraph {op.graph.index}: the GPU "
                          f"accelerator crashes building its kernel (SIGSEGV), so the whole model fails to "
                          f"compile; `gpucompat fix` inlines its decomposition where that computes what the "
                          f"composite does (or export without the composites: litert-torch's enable_hlfb=False)")
    elif profile.whole_model_failure and gated is not None:
        result.failure = (f"subgraph {gated.index}: {gated.gate}; the whole model fails to compile with "
                          f"the GPU accelerator (Failed to modify graph with delegate)")
    elif profile.whole_model_failure and result.delegation_failure:
        first = result.delegation_failure[0]
        result.failure = (f"op#{first.index} {first.op} in subgraph {first.subgraph} fails when the GPU graph is "
                          f"built: the whole model fails to compile with the GPU accelerator")
    if result.delegation_fails:
        for o in result.ops:
            o.placement = "cpu"


def _fall_back(model: Model, result: ModelResult) -> None:
    """The classic delegate's backend fallback (tflite/delegates/gpu/delegate.cc
    DelegateKernelCore::Setup): when the OpenCL kernel build fails it logs the reason and
    "Falling back to OpenGL", and the delegation survives if every delegated op also builds there.
    Partitioning is not redone: it happened with OpenCL available (SPLIT included)."""
    profile, options = result.profile, result.options
    failed = result.delegation_failure
    fallback = profile.fallback_backend
    if (not failed or fallback is None or options.backend == fallback
            or any(o.verdict.layer != "backend" for o in failed)):
        return
    retry = replace(options, backend=fallback)
    verdicts = {(g.index, i): v for g in model.graphs for i, v in enumerate(judge_graph(g, profile, retry).verdicts)}
    if all(verdicts[o.subgraph, o.index].ok for o in result.ops if o.placement == "gpu"):
        result.delegation_failure = []
        result.backend_used = fallback


def _gl_partition_failures(model: Model, result: ModelResult) -> list[OpResult]:
    """The GL delegate's build failures that depend on a delegated partition as a whole
    (Profile.one_batch_on_gl), per partition: the first op whose runtime tensor has another batch
    than the partition's first one (layout.bhwc), or the first op the delegate fuses into a shader
    Mesa cannot compile (gl_measured.nan_redeclared); each op's verdict is turned into its build
    failure. Empty when every partition builds."""
    from gpucompat.rules.support.gl_measured import nan_redeclared

    found = []
    partitions: dict[tuple[int, int | None], list[OpResult]] = {}
    for o in result.ops:
        if o.placement == "gpu":
            partitions.setdefault((o.subgraph, o.partition), []).append(o)
    for (subgraph, _), members in partitions.items():
        graph = model.graphs[subgraph]
        inside = {id(graph.ops[o.index]) for o in members}
        batches = _batches(graph.ops[o.index] for o in members)
        for o in members:
            op = graph.ops[o.index]
            producer = op.input(0).producer if op.input(0) is not None else None
            verdict = nan_redeclared(op) if producer is not None and id(producer) in inside else None
            if (verdict is None or verdict.ok) and id(op) in batches:
                first, t, batch = batches[id(op)]
                verdict = reject(f"tensor {t.name!r} {list(t.shape)} has batch {batch} on the GPU, and the "
                                 f"partition's first tensor batch {first}: the GL delegate builds one batch",
                                 "parse", f"Batch size mismatch, expected {first} but got {batch}")
            if verdict is not None and not verdict.ok:
                o.verdict = verdict
                found.append(o)
                break
    return found


def _batches(ops) -> dict[int, tuple[int, object, int]]:
    """Of `ops` (one partition), the first op with a runtime tensor whose batch (layout.bhwc) is not
    the first tensor's: {id(op): (the first batch, the tensor, its batch)}; empty when all agree."""
    from gpucompat.layout import bhwc

    first = None
    for op in ops:
        for t in (*op.present_inputs, *op.outputs):
            layout = None if _folded(t) else bhwc(t.shape)
            if layout is None:
                continue
            if first is None:
                first = layout[0]
            elif layout[0] != first:
                return {id(op): (first, t, layout[0])}
    return {}


def _folded(t) -> bool:
    """A constant, or a DEQUANTIZE of one (fp16 weights the delegate reads as constants)."""
    op = t.producer
    return t.is_constant or (op is not None and op.name == "DEQUANTIZE" and op.input(0) is not None
                             and op.input(0).is_constant)


def _crashing_composite(model: Model, profile: Profile) -> tuple | None:
    """The first STABLEHLO_COMPOSITE whose name the profile knows crashes the compilation, with its
    name; None when there is none."""
    if not profile.crashing_composites:
        return None
    from gpucompat.ir.signatures import composite_name

    for op in model.ops():
        name = composite_name(op) if op.name == "STABLEHLO_COMPOSITE" else None
        if name in profile.crashing_composites:
            return op, name
    return None


def _unresolved_custom_op(model: Model, profile: Profile) -> str | None:
    """The first custom op code the runtime does not register, when the profile knows its set."""
    if profile.registered_custom_ops is None:
        return None
    for op in model.ops():
        if op.is_custom and op.code.custom not in profile.registered_custom_ops:
            return op.code.custom or ""
    return None


def after_replace(g, sr: SubgraphResult, supported: set[int], chosen: set[int], fp16: set[int]) -> list[NodeSubset]:
    """The node subsets ReplaceNodeSubsetsWithDelegateKernels forms from the chosen nodes (its
    "yielding N partitions"; none when nothing is chosen). The FP16 helper has re-pointed the
    chosen nodes' inputs from each constant FP16 DEQUANTIZE's output to its fp16 constant
    (RemapFp16InputTensors), so those DEQUANTIZE nodes no longer hold the delegated nodes back.
    When every supported node is chosen and nothing is re-pointed, they are `sr.subsets` again
    (the same nodes partitioned the same way), not worked out twice."""
    if not chosen:
        return []
    if chosen == supported and not fp16:
        return sr.subsets
    tensor_index = {id(t): i for i, t in enumerate(g.tensors)}
    remap = {tensor_index[id(g.ops[i].outputs[0])]: tensor_index[id(g.ops[i].input(0))] for i in fp16}
    return node_subsets(g, chosen, remap)


def choose_nodes(g, sr: SubgraphResult, supported: set[int], fp16: set[int], profile: Profile,
            options: Options) -> set[int]:
    """Nodes handed to the delegate in one subgraph. Where the FP16 helper's constant DEQUANTIZE
    nodes go with them, `sr.subsets` becomes the subsets the runtime forms with them included,
    so that the subsets agree with where each op runs."""
    if profile.partitioning == "prefix":
        # 2019 (GetOpsToReplaceFromGraphWithDequantize): FP16 DEQUANTIZE nodes are taken out of
        # the graph first, so they neither end the prefix nor stay on the CPU.
        chosen = supported_prefix(g, supported | fp16)
        if fp16:
            sr.subsets = node_subsets(g, supported | fp16)
        sr.delegated = [i for i, s in enumerate(sr.subsets) if s.delegated_type and set(s.nodes) <= chosen]
        return chosen
    if fp16 and len(supported) + len(fp16) == len(g.ops):
        # Scenario 1 of FP16GraphPartitionHelper::GetNodesOfFirstNLargestPartitionsImpl: every
        # node, the DEQUANTIZEs included, goes to the delegate as one kernel.
        sr.full_fp16_override = True
        sr.subsets = node_subsets(g, set(range(len(g.ops))))
        sr.delegated = [i for i, s in enumerate(sr.subsets) if s.delegated_type]
        return set(range(len(g.ops)))
    partitions = [s for s in sr.subsets if s.delegated_type]
    picked = largest(partitions, options.max_delegated_partitions)
    sr.delegated = [i for i, s in enumerate(sr.subsets) if any(s is p for p in picked)]
    return {n for p in picked for n in p.nodes}
