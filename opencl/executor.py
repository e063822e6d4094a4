"""The interpreter: runs a list of IR ops (one delegated partition) on OpenCL.

Load time groups the ops into runs (an op, with the elementwise ops fused into its kernel: see
fusion.py) and lowers every run into a step (kernel launches bound to preallocated PHWC4 tensors;
weights uploaded, index maps built). `run` converts the partition's inputs from BHWC to PHWC4 (on
the device when their channels are not whole slices), calls `run_op` for each op in execution
order, and converts the outputs back: the one synchronous round
trip per partition the delegate makes (cl/api.cc InferenceRunnerImpl::Run).

`RecordingExecutor` overrides `run_op` to keep every op's outputs, which is what naming the first
divergent op needs (torch.fx's Interpreter pattern); it does not fuse, so every op's output exists.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpucompat.errors import GpucompatError
from gpucompat.ir import Op, Tensor, dtypes
from gpucompat.opencl.fusion import Epilogue
from gpucompat.opencl.phwc4 import BHWC, bhwc
from gpucompat.opencl.runtime import GpuTensor, Runtime

Step = Callable[[], None]
Run = list[Op]  # an op (or a merged depthwise + 1x1 pair) and the elementwise ops linked into its kernel


class UnsupportedOp(GpucompatError):
    """An op (or a parameter of one) the executor has no kernel for."""


def dequantize(t: Tensor, values: np.ndarray) -> np.ndarray:
    """Fixed-point values of `t` -> float, per tensor or per channel, as the delegate reads
    quantized constants (model_builder_helper.cc DequantizeConstantTensor)."""
    q = t.quantization
    if q is None or values.dtype.kind == "f" or values.dtype == np.bool_:
        with np.errstate(over="ignore"):  # a float64 constant past fp32's range is inf, as a cast makes it
            return values.astype(np.float32)
    scale = np.asarray(q.scale, np.float32)
    zero = np.asarray(q.zeroPoint if q.zeroPoint is not None else np.zeros_like(scale), np.float32)
    if scale.size > 1:
        shape = [1] * values.ndim
        shape[q.quantizedDimension] = -1
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return ((values.astype(np.float32) - zero) * scale).astype(np.float32)


def blockwise_values(t: Tensor) -> np.ndarray | None:
    """INT4 weights with per-block scales as floats, as the CPU reads them: two values a byte, the
    low nibble first, sign-extended (tflite/kernels/internal/portable_tensor_utils.cc
    UnpackDenseInt4IntoInt8), each times the scale of its block along the last axis (the scales
    tensor [rows, blocks] the quantization names); None when `t` is not such a constant."""
    if not (t.is_constant and t.is_blockwise_quantized and t.dtype == dtypes.INT4):
        return None
    scales = dict(t.graph.model.quantization_targets(t)).get("scales")
    block = int(t.fb.quantization.details.blockSize or 0)
    if scales is None or scales.data() is None or block <= 0 or t.shape[-1] % block:
        return None
    packed = np.asarray(t.buffer.data, np.uint8)
    nibbles = np.stack([packed & 0x0F, packed >> 4], axis=-1).ravel()[:t.num_elements].astype(np.int8)
    values = np.where(nibbles > 7, nibbles - 16, nibbles).astype(np.float32).reshape(t.shape)
    per_block = np.asarray(scales.data(), np.float32)
    return values * np.repeat(per_block, block, axis=-1).reshape(t.shape)


def quantize(t: Tensor, values: np.ndarray) -> np.ndarray:
    """Float values -> the fixed-point type of `t` (the delegate's QuantizeOutputs on the CPU)."""
    dt = dtypes.numpy_dtype(t.dtype)
    q = t.quantization
    if dt.kind == "f":
        return values.astype(dt)
    if dt == np.bool_:
        return values != 0
    if q is None:
        return np.trunc(values).astype(dt)
    scale, zero = float(q.scale[0]), float(q.zeroPoint[0]) if q.zeroPoint is not None else 0.0
    info = np.iinfo(dt)
    return np.clip(np.rint(values / scale) + zero, info.min, info.max).astype(dt)


class Executor:
    """One partition on one runtime. `inputs` / `outputs` are the tensors crossing its boundary;
    `folded` holds constant values computed at load (DENSIFY, fp16 DEQUANTIZE), in the tensors'
    own dtypes: an input among them is uploaded once, at load, not written every run."""

    fuse = True

    def __init__(self, runtime: Runtime, ops: list[Op], inputs: list[Tensor], outputs: list[Tensor],
                 folded: dict[int, np.ndarray] | None = None):
        from gpucompat.opencl.fusion import depthwise_into_1x1, depthwise_plus_1x1, groups, merged_padding
        from gpucompat.opencl.lowering import linkable, lower, producer

        self.runtime = runtime
        self.ops = ops
        self.folded = folded or {}
        self.inputs = [t for t in inputs if id(t) not in self.folded]
        self.outputs = outputs
        self.tensors: dict[int, GpuTensor] = {}
        self.views: dict[tuple[int, int], GpuTensor] = {}
        self.pending: list[Step] = []
        self.epilogue: Epilogue | None = None
        handed_on = {id(t) for t in outputs}
        in_partition = {id(op) for op in ops}

        def constant(t: Tensor) -> bool:
            return self.value(t) is not None

        def producing(op: Op) -> bool:
            return producer(op, constant)

        def merge(op: Op) -> Op | None:
            # In fp16 the pairs the delegate merges: its merged kernel keeps the depthwise output in
            # registers, where two kernels would store it rounded to half. In fp32, where nothing
            # stored is rounded, the executor's own merge, for speed (docs/verify.md, "Fusion").
            pair = depthwise_plus_1x1 if runtime.precision == "fp16" else depthwise_into_1x1
            return pair(op, in_partition, handed_on, producing, constant)

        # id(convolution) -> (the input of the PAD folded into it, extra leading rows, columns)
        self.padded: dict[int, tuple[Tensor, int, int]] = {}
        if self.fuse:
            for op in ops:
                folded_into = merged_padding(op, in_partition, handed_on, constant)
                if folded_into is not None:
                    conv, rows, columns = folded_into
                    self.padded[id(conv)] = (op.inputs[0], rows, columns)
                    in_partition.discard(id(op))
            ops = [op for op in ops if id(op) in in_partition]
        runs = groups(ops, handed_on, producing, linkable, merge) if self.fuse else [[op] for op in ops]
        self.steps: list[tuple[Run, Step]] = [(run, lower(self, run)) for run in runs]
        self.unpadded = {id(t): self._unpadded_input(t) for t in self.inputs if self.shape(t).c % 4}

    # -- what lowerings use -------------------------------------------------------------------
    def shape(self, t: Tensor) -> BHWC:
        """The delegate's BHWC shape of a tensor."""
        try:
            return bhwc(t.shape)
        except ValueError as e:
            raise UnsupportedOp(f"tensor#{t.index} {t.name!r}: {e}") from None

    def convolved(self, op: Op) -> tuple[Tensor, int, int]:
        """What convolution `op` reads: its input and no extra padding, or the input of the PAD
        folded into it and that PAD's leading rows and columns (fusion.py merged_padding)."""
        return self.padded.get(id(op), (op.inputs[0], 0, 0))

    def alias(self, t: Tensor, storage: Tensor) -> None:
        """Let `t` live in the device tensor of `storage` (a fused run stores its producer's result
        straight into the run's last tensor)."""
        self.tensors[id(t)] = self.tensor(storage)

    def prepare(self, family: str, kernel: str, size: tuple[int, ...], *args,
                local: tuple[int, ...] | None = None) -> Step:
        """A launch of a producer kernel (one that stores through STORE_CELL); the ops linked into
        it, if any, are added to its program and arguments (once: one kernel per run). `local`: an
        explicit work-group size (Runtime.prepare)."""
        link, self.epilogue = self.epilogue, None
        if link is None:
            return self.runtime.prepare(family, kernel, size, *args, local=local)
        return self.runtime.prepare(family, kernel, size, *args, epilogue=link, local=local)

    def cells(self, t: Tensor) -> tuple[int, int, int]:
        """The global size of a kernel with one work-item per float4 cell of `t`: (W, H, B * S)."""
        s = self.shape(t)
        return (s.w, s.h, s.b * s.slices)

    def value(self, t: Tensor | None) -> np.ndarray | None:
        """A constant's float value (dequantized, folded), None for runtime tensors."""
        if t is None:
            return None
        data = self.folded.get(id(t))
        data = t.data() if data is None else data
        if data is None:
            return blockwise_values(t)
        return dequantize(t, data)

    def tensor(self, t: Tensor) -> GpuTensor:
        """The device tensor holding `t`: allocated on first use, constants uploaded."""
        if id(t) not in self.tensors:
            v = self.value(t)
            shape = self.shape(t)
            if shape.vec4s == 0:  # OpenCL has no empty buffers (clCreateBuffer: CL_INVALID_BUFFER_SIZE)
                raise UnsupportedOp(f"tensor#{t.index} {t.name!r} has no elements (shape {t.shape})")
            self.tensors[id(t)] = self.runtime.upload(v, shape) if v is not None else self.runtime.empty(shape)
        return self.tensors[id(t)]

    def tensor_as(self, t: Tensor, rank: int) -> tuple[GpuTensor, tuple[int, int, int, int]]:
        """`t` seen as a tensor of `rank` after numpy-style broadcasting (leading 1s added), with
        its BHWC dims: what the elementwise kernels broadcast over. When the higher rank maps to
        another BHWC layout, constants are uploaded in it and runtime tensors are re-laid out by
        a reshape queued in `pending` (run before the op)."""
        shape = bhwc((1,) * (rank - len(t.shape)) + tuple(t.shape))
        if shape == self.shape(t):
            return self.tensor(t), shape.dims
        key = (id(t), rank)
        if key not in self.views:
            v = self.value(t)
            if v is not None:
                self.views[key] = self.runtime.upload(v, shape)
            else:
                from gpucompat.opencl.ops.movement import reshape_step

                self.views[key] = self.runtime.empty(shape)
                self.pending.append(reshape_step(self, self.tensor(t), self.views[key]))
        return self.views[key], shape.dims

    def _unpadded_input(self, t: Tensor) -> tuple[GpuTensor, Step]:
        """For an input whose channels are not whole slices (an RGB image): a device buffer taking
        the host's BHWC values as they are (seen as one row of B * H * W * C channels, so a copy
        needs no padding), and the reshape laying them out in PHWC4, on the device as the
        delegate converts its inputs: numpy spends about 0.2 ms padding a 128x128 RGB image lane
        by lane, more than the MobileNetV2's largest kernels."""
        shape = self.shape(t)
        flat = self.runtime.empty(BHWC(1, 1, 1, shape.b * shape.h * shape.w * shape.c))
        return flat, self.runtime.prepare("reindex", "from_bhwc", self.cells(t), flat, self.tensor(t), shape.dims)

    # -- running ------------------------------------------------------------------------------
    def run(self, feeds: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Run the partition: `feeds` maps id(input tensor) -> host value; returns id(output
        tensor) -> host value in the output's own dtype."""
        _staged = []
        for t in self.inputs:
            value = np.asarray(feeds[id(t)])
            if value.dtype != np.float32:  # float32 is copied to the device as it is (no staging copy)
                value = dequantize(t, value)
            if id(t) in self.unpadded:
                flat, lay_out = self.unpadded[id(t)]
                _staged.append(self.runtime.write(flat, value))
                lay_out()
            else:
                _staged.append(self.runtime.write(self.tensor(t), value))
        for run, step in self.steps:
            self.run_op(run, step)
        # the one wait; `_staged` lives until here
        values = self.runtime.download(*[self.tensor(t) for t in self.outputs])
        return {id(t): quantize(t, v.reshape(t.shape)) for t, v in zip(self.outputs, values)}

    def reset_variables(self) -> None:
        """Put every variable tensor the partition reads (an LSTM's states) back to its value at
        load: the model's data for it, or zeros."""
        state = {id(t): t for op in self.ops for t in op.present_inputs if t.is_variable}.values()
        initial = [(t, self.value(t)) for t in state]
        _staged = [self.runtime.write(self.tensor(t), v if v is not None else np.zeros(t.shape, np.float32))
                  for t, v in initial]
        self.runtime.finish()  # the staging arrays in `_staged` must live until here

    def run_op(self, run: Run, step: Step) -> None:
        """Run one run's kernels (the single dispatch point; subclasses hook here)."""
        step()


class RecordingExecutor(Executor):
    """An executor that keeps every op output (float32, the op's tensor shape) after a run; it runs
    each op on its own (no fusion)."""

    fuse = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.recorded: dict[int, np.ndarray] = {}

    def run_op(self, run: Run, step: Step) -> None:
        """Run the op, then download its outputs."""
        step()
        outputs = [t for op in run for t in op.outputs]
        for t, v in zip(outputs, self.runtime.download(*[self.tensor(t) for t in outputs])):
            self.recorded[id(t)] = v.reshape(t.shape)
