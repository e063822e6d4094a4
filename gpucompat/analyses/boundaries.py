"""CPU<->GPU boundaries: what crosses into and out of every delegate kernel on each inference.

Facts (tflite/delegates/gpu/cl/api.cc InferenceRunnerImpl::Run, delegate.cc GetTensorObject /
DelegateKernel::Invoke, delegate_options.cc): each delegate kernel invoke copies all
its inputs CPU->GPU with a layout conversion (BHWC -> slices of 4, so a 3-channel RGB tensor is
widened to 4 channels), runs, copies the outputs back and waits for the queue: one synchronous
round trip per delegated partition per inference (tflite/delegates/gpu/cl/api.cc
InferenceRunnerImpl::Run; delegate.cc GetTensorObject/SetInputsAndOutputs). Quantized (int8/uint8)
tensors crossing a boundary are also dequantized / quantized on the CPU (delegate.cc
DelegateKernel::Invoke DequantizeInputs/QuantizeOutputs). The kernels are the partitions the runtime
forms again over the chosen nodes (core/subgraph.cc ReplaceNodeSubsetsWithDelegateKernels)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpucompat.ir import dtypes
from gpucompat.layout import bhwc
from gpucompat.rules.support.judging import is_fp16_constant_dequantize

QUANTIZED = {dtypes.INT8, dtypes.UINT8}

# Precision each way of creating the delegate defaults to (delegate_options.cc
# TfLiteGpuDelegateOptionsV2Default, java/.../GpuDelegateFactory.java, cl/api.cc GetPrecision).
PRECISION_DEFAULTS = (
    {"entry_point": "C++ TfLiteGpuDelegateV2Create", "precision": "fp32",
     "source": "tflite/delegates/gpu/delegate_options.cc (inference_priority1 = MAX_PRECISION)"},
    {"entry_point": "Java GpuDelegate / GpuDelegateFactory.Options", "precision": "fp16",
     "source": "tflite/delegates/gpu/java/.../GpuDelegateFactory.java (precisionLossAllowed = true)"},
    {"entry_point": "benchmark_model / delegate provider", "precision": "fp16",
     "source": "tflite/tools/delegates/gpu_delegate_provider.cc (gpu_precision_loss_allowed = true)"},
    {"entry_point": "Metal TFLGpuDelegateCreate", "precision": "fp32",
     "source": "tflite/delegates/gpu/metal_delegate.mm (allow_precision_loss = false)"},
)


@dataclass
class Crossing:
    """A tensor copied between CPU and GPU memory on every inference."""

    index: int
    name: str
    shape: list[int]
    dtype: str
    bytes: int
    direction: str  # "in" (CPU -> GPU) or "out" (GPU -> CPU)
    quantized: bool  # int8/uint8: (de)quantized on the CPU each invoke
    three_channels: bool  # widened from 3 to 4 channels (RGB -> RGBX) on the way in
    graph_input: bool


@dataclass
class Kernel:
    """One delegate kernel: its nodes and what crosses its boundary."""

    subgraph: int
    nodes: list[int]
    crossings: list[Crossing]

    @property
    def bytes_in(self) -> int:
        return sum(c.bytes for c in self.crossings if c.direction == "in")

    @property
    def bytes_out(self) -> int:
        return sum(c.bytes for c in self.crossings if c.direction == "out")


@dataclass
class Boundaries:
    """Every delegate kernel's boundary traffic."""

    kernels: list[Kernel] = field(default_factory=list)

    @property
    def round_trips(self) -> int:
        """Synchronous CPU<->GPU round trips per inference (one per kernel)."""
        return len(self.kernels)

    @property
    def bytes_per_inference(self) -> int:
        return sum(k.bytes_in + k.bytes_out for k in self.kernels)

    def crossings(self, predicate) -> list[Crossing]:
        """Crossings of every kernel that satisfy `predicate`."""
        return [c for k in self.kernels for c in k.crossings if predicate(c)]


def boundaries(model, result) -> Boundaries:
    """The delegate kernels of every subgraph and the tensors crossing into and out of them."""
    out = Boundaries()
    for g, sr in zip(model.graphs, result.subgraphs):
        gi = sr.index
        if not any(o.subgraph == gi and o.placement == "gpu" for o in result.ops):
            continue
        graph_inputs = {id(t) for t in g.inputs}
        for subset in sr.after_replace:  # the kernels the runtime forms from the delegated nodes
            if not subset.delegated_type:
                continue
            crossings = []
            for direction, indices in (("in", subset.input_tensors), ("out", subset.output_tensors)):
                for i in indices:
                    t = g.tensors[i]
                    if t.is_constant or (t.producer is not None and is_fp16_constant_dequantize(t.producer)):
                        continue
                    m = bhwc(t.shape)
                    crossings.append(Crossing(i, t.name, list(t.shape), t.dtype_name, t.nbytes, direction,
                                              t.dtype in QUANTIZED,
                                              direction == "in" and t.rank == 4 and m is not None and m[3] == 3,
                                              id(t) in graph_inputs))
            out.kernels.append(Kernel(gi, sorted(subset.nodes), crossings))
    return out
