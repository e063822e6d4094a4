"""Delegate profiles: per-op support entries plus the profile-wide behaviour of one delegate
generation. Profiles are data; the predicates they name live in rules/support/predicates.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from gpucompat.ir import Op
from gpucompat.rules.support.verdict import Verdict

Backend = Literal["cl", "gl", "metal", "webgpu"]


@dataclass(frozen=True)
class Options:
    """What the app configures: quantized ops allowed, backend, partitions delegated."""

    allow_quant: bool = True
    backend: str = "cl"
    max_delegated_partitions: int = 1
    device_families: tuple[str, ...] = ()  # GPU families whose public reports to raise (rules/lint/device_reports/)


Check = Callable[[Op, "Context"], Verdict]  # noqa: F821 - rules.context imports this module


@dataclass(frozen=True)
class OpSupport:
    """How one op (builtin or custom) is treated.

    max_version: the parser's CheckMaxSupportedOpVersion cap (None: no cap).
    checks: IsSupported-level and Parse-level predicates, run in order; each returns a Verdict
        whose layer says where the runtime rejects.
    input_types / output_types: runtime tensor types allowed on top of the profile's defaults
        (IsAllAllowedTensors per-op extras, e.g. CAST takes BOOL and INT32).
    backends: backends with a kernel for this op; others give a backend-layer rejection.
    quant_only: the parser exists only when quantized ops are allowed (QUANTIZE, DEQUANTIZE).
    """

    max_version: int | None = None
    checks: tuple[Check, ...] = ()
    input_types: frozenset[int] = frozenset()
    output_types: frozenset[int] = frozenset()
    backends: frozenset[str] | None = None
    quant_only: bool = False


@dataclass(frozen=True)
class Profile:
    """One delegate generation.

    ops: builtin op code -> OpSupport; custom_ops: custom code -> OpSupport.
    partitioning: "largest" (greedy subsets, N largest delegated) or "prefix" (2019: longest
        supported prefix of the execution plan).
    runtime_types: runtime tensor types every op accepts (FLOAT32/FLOAT16; INT8/UINT8 added when
        quantized ops are allowed and `quant_types` is set).
    fp16_dequantize_helper: FP16GraphPartitionHelper semantics for constant fp16 DEQUANTIZE.
    max_rank: tensors of higher rank are rejected (IsAllAllowedTensors).
    backends: backends the profile knows; the first is the default.
    unsupported_message: the runtime's text for an op without a parser ({opcode}: its op code).
    fallback_backend: the backend tried when the kernel build on the requested one fails (the
        classic delegate falls back from OpenCL to OpenGL), None when a failure is final.
    whole_model_failure: a dynamic-tensor gate or a delegate failure in any subgraph fails the
        whole model (LiteRT CompiledModel) instead of the interpreter's per-subgraph behaviour.
    registered_custom_ops: custom codes the runtime itself registers; with a set, a model using
        any other custom op cannot be loaded at all (None: the app brings its own resolver).
    loads_variable_tensors: False when the runtime's model loader refuses any variable tensor
        (LiteRT CompiledModel: a stateful model cannot be loaded at all).
    crashes_on_empty_tensors: True when a tensor without elements in the graph handed to the
        delegate crashes the compilation (gpucompat/prepare.py; LiteRT's accelerator: SIGFPE).
    crashing_composites: STABLEHLO_COMPOSITE names (litert-torch's `odml.*`) whose presence crashes
        the compilation of the whole model (LiteRT's accelerator: SIGSEGV building its kernel).
    rank_message / type_message: the runtime's IsAllAllowedTensors texts ({limit}, {type}, {name}).
    quant_ops: False when the delegate is built with quantized ops disallowed, whatever the app
        asks (the classic GL delegate as MediaPipe builds it: allow_quant_ops=false).
    one_batch_on_gl: on the gl backend every runtime tensor of a delegated partition must have one
        batch (the first axis of its BHWC layout), else the build fails ("Batch size mismatch,
        expected 2 but got 1"): measured on the classic GL delegate, two independent TANHs of a
        [2, 4] and a [1, 4, 4, 4] tensor fail together and build apart.
    prepare_time_ints_on_gl: on the gl backend an int tensor the interpreter computes while it
        prepares (the SHAPE of a static tensor, and what gl_measured.PREPARE_TIME ops make of such
        tensors and constants) passes the delegate's type filter, which judges only the tensors the
        interpreter computes at run time: measured on the classic GL delegate, SHAPE -> GATHER is
        taken and fails to build ("Input tensor is not found in the graph.").
    release: the runtime release the profile describes ("2.3.0" for LiteRT's ai-edge-litert 2.3.0),
        None for the classic delegate's generations, which are read from source, not a wheel.
    forms: the numerics table a calibrated profile file carries (rules/support/calibration/ Table record),
        None where the shipped table stands for the profile or none does.
    """

    name: str
    title: str
    description: str
    ops: dict[int, OpSupport]
    custom_ops: dict[str, OpSupport] = field(default_factory=dict)
    partitioning: Literal["largest", "prefix"] = "largest"
    runtime_types: frozenset[int] = frozenset()
    quant_types: frozenset[int] = frozenset()
    fp16_dequantize_helper: bool = True
    dynamic_gate: bool = True
    max_rank: int = 4
    backends: tuple[str, ...] = ("cl", "gl", "metal")
    excluded_without_opencl: frozenset[int] = frozenset()
    unsupported_message: str = "Operation is not supported."
    fallback_backend: str | None = None
    sources: tuple[str, ...] = ()
    whole_model_failure: bool = False
    registered_custom_ops: frozenset[str] | None = None
    loads_variable_tensors: bool = True
    crashes_on_empty_tensors: bool = False
    crashing_composites: frozenset[str] = frozenset()
    rank_message: str = "OP is supported, but tensor type/shape isn't compatible."
    type_message: str = "OP is supported, but tensor type/shape isn't compatible."
    quant_ops: bool = True
    one_batch_on_gl: bool = False
    prepare_time_ints_on_gl: bool = False
    release: str | None = None
    forms: dict | None = None

    @property
    def label(self) -> str:
        """The name with the release it describes: "litert-mldrift (LiteRT 2.3.0)"."""
        return label(self.name, self.release)

    def support(self, op: Op) -> OpSupport | None:
        """The entry for an op, None when this profile has no parser for it."""
        if op.is_custom:
            return self.custom_ops.get(op.code.custom or "")
        return self.ops.get(op.builtin)


def label(name: str, release: str | None) -> str:
    """A profile's name as outputs show it: with the release it describes unless the name holds it."""
    return f"{name} (LiteRT {release})" if release and "@" not in name else name
