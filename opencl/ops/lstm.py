"""LSTM (opencl/lstm.cl), lowered as the delegate lowers it: fully connected gates over
[input, previous output], sigmoid / tanh, the cell update, then the output (and, in the full
kernel, the projection) — common/lstm_parser.cc ParseLSTMAttributes for the full kernel,
model_builder.cc LSTMOperationParser::ParseBasic (CONCAT, FULLY_CONNECTED, the LSTM task) for the
basic one.

The delegate builds one FULLY_CONNECTED per gate and operand and adds them; here the four gates
are one product over the concatenation [input, previous output] with the weights stacked in the
basic kernel's gate order (input, cell, forget, output): the same sums.

With layer normalization (inputs 20-23) each gate's sum, peephole term included, is normalized
over the units (mean and variance, epsilon 1e-8), times the gate's coefficients, plus its bias,
then activated: common/lstm_parser.cc BuildLstmGate (MEAN_STDDEV_NORMALIZATION, MUL, ADD), the
order of kernels/lstm_eval.cc CalculateLstmGateFloat too. The output gate's peephole reads the new
cell state, so its normalization waits for the whole new state (lstm.cl lstm_cell_normalized).

The full kernel's states are variable tensors: the op reads them and writes the new ones back,
so they carry over from one run to the next (the delegate maps them to its new values:
GetNewValueIdsForVariableInputNodes). The cell state is updated in place; the new output state is
copied into its variable after the op.
"""

from __future__ import annotations

import numpy as np

from gpucompat.ir import Op, Tensor
from gpucompat.opencl.executor import Executor, Step, UnsupportedOp
from gpucompat.opencl.ops.registry import lowering, options, sequence
from gpucompat.opencl.phwc4 import BHWC
from gpucompat.opencl.runtime import GpuTensor

FULL_KERNEL = 0  # schema LSTMKernelType: FULL, BASIC
TANH = 4  # schema ActivationFunctionType
# Full kernel inputs (kernels/lstm_shared.h), each group in the file's gate order (input, forget,
# cell, output); the peephole group has no cell entry.
INPUT_WEIGHTS, RECURRENT_WEIGHTS, BIASES = (1, 2, 3, 4), (5, 6, 7, 8), (12, 13, 14, 15)
PEEPHOLE_WEIGHTS = (9, 10, 11)
PROJECTION_WEIGHTS, PROJECTION_BIAS = 16, 17
OUTPUT_STATE, CELL_STATE = 18, 19
LAYER_NORM_WEIGHTS = (20, 21, 22, 23)
KERNEL_GATE_ORDER = (0, 2, 1, 3)  # the file's (input, forget, cell, output) -> lstm.cl's (input, cell, forget, output)


def _rows(ex: Executor, op: Op, t: Tensor) -> GpuTensor:
    """The device tensor of a [B, n] operand (LSTM tensors are 2-D)."""
    if len(t.shape) != 2:
        raise UnsupportedOp(f"op#{op.index} LSTM: tensor {t.name!r} has shape {t.shape}; 2-D tensors only")
    return ex.tensor(t)


def _constant(ex: Executor, op: Op, index: int, shape: tuple[int, ...]) -> np.ndarray:
    """Input `index` as a constant array, zeros when the optional input is absent."""
    t = op.input(index)
    if t is None:
        return np.zeros(shape, np.float32)
    value = ex.value(t)
    if value is None:
        raise UnsupportedOp(f"op#{op.index} LSTM: input {index} ({t.name!r}) must be a constant")
    return value.reshape(shape)


def _dense(ex: Executor, a: GpuTensor, h: GpuTensor | None, weights: np.ndarray, bias: np.ndarray,
           dst: GpuTensor, clip: float = 0.0) -> Step:
    """dst = [a, h] times weights^T plus bias (h may be absent), clamped to +-clip when clip > 0."""
    other = h if h is not None else a
    widths = (a.shape.c, h.shape.c if h is not None else 0)
    return ex.runtime.prepare("lstm", "dense_pair", (dst.shape.c, dst.shape.b), a, a.shape.dims, other,
                              other.shape.dims, widths, ex.runtime.weights(weights), ex.runtime.weights(bias),
                              dst, dst.shape.dims, float(clip))


def _cell(ex: Executor, gates: GpuTensor, c_prev: GpuTensor, c_new: GpuTensor, h: GpuTensor, peephole: np.ndarray,
          cifg: bool, cell_clip: float, gate_stride: int) -> Step:
    """The cell update; gate k of unit n is read at channel k * gate_stride + n of `gates` (0 past its end)."""
    return ex.runtime.prepare("lstm", "lstm_cell", (h.shape.c, h.shape.b), gates, gates.shape.dims, c_prev, c_new, h,
                              h.shape.dims, ex.runtime.weights(peephole), int(cifg), float(cell_clip), gate_stride)


def _normalized_cell(ex: Executor, gates: GpuTensor, c_state: GpuTensor, h: GpuTensor, peephole: np.ndarray,
                     coefficients: np.ndarray, bias: np.ndarray, cifg: bool, cell_clip: float) -> Step:
    """The cell update with layer normalization, one work-item per row; `gates` holds the gate sums
    without biases, `coefficients` and `bias` [4U] are in lstm.cl's gate order."""
    rt = ex.runtime
    return rt.prepare("lstm", "lstm_cell_normalized", (c_state.shape.b,), gates, gates.shape.dims, c_state, h,
                      h.shape.dims, rt.weights(peephole), rt.weights(coefficients), rt.weights(bias), int(cifg),
                      float(cell_clip))


@lowering("LSTM")
def lstm(ex: Executor, op: Op) -> Step:
    """The full kernel (20 or 24 inputs) or the basic kernel (5 inputs, 4 outputs)."""
    if options(op).fusedActivationFunction != TANH:
        raise UnsupportedOp(f"op#{op.index} LSTM: activation {options(op).fusedActivationFunction}; only TANH")
    return _full(ex, op) if options(op).kernelType == FULL_KERNEL else _basic(ex, op)


def _basic(ex: Executor, op: Op) -> Step:
    """Inputs (input, prev_activ, weights [4U, in + U], biases [4U], prev_state); outputs (activ,
    state, concat_temp, activ_temp), all four computed, as the delegate does. Its LSTM task reads
    gate k of unit n at slice n // 4 + k * ceil(U / 4) of activ_temp (tasks/lstm.cc), channel
    4 * k * ceil(U / 4) + n: gate k's start only when U % 4 == 0. Otherwise the gates come from
    the wrong channels and slices past activ_temp's end read as 0, as LiteRT's GPU accelerator
    computes it (tests/test_executor_lstm_device.py); activ and state then differ from the
    reference interpreter's, and verify reports it."""
    o = options(op)
    if len(op.inputs) != 5 or len(op.outputs) != 4:
        raise UnsupportedOp(f"op#{op.index} LSTM: the basic kernel needs 5 inputs and 4 outputs")
    if o.cellClip or o.projClip:
        raise UnsupportedOp(f"op#{op.index} LSTM: cell_clip / proj_clip are not supported by the basic kernel")
    x, h_prev, c_prev = (_rows(ex, op, op.inputs[i]) for i in (0, 1, 4))
    activ, state, concat, gates = (_rows(ex, op, t) for t in op.outputs)
    units = activ.shape.c
    weights = _constant(ex, op, 2, (4 * units, x.shape.c + units))
    bias = _constant(ex, op, 3, (4 * units,))
    widths = (x.shape.c, h_prev.shape.c)
    join = ex.runtime.prepare("lstm", "concat_pair", (concat.shape.c, concat.shape.b), x, x.shape.dims, h_prev,
                              h_prev.shape.dims, widths, concat, concat.shape.dims)
    return sequence([join, _dense(ex, concat, None, weights, bias, gates),
                     _cell(ex, gates, c_prev, state, activ, np.zeros(3 * units, np.float32), False, 0.0,
                           4 * activ.shape.slices)])  # tasks/lstm.cc: state_stride = activation.Slices()


def _full(ex: Executor, op: Op) -> Step:
    """CIFG (no input gate weights), peephole, projection, cell and projection clipping, layer
    normalization. Batch 1, as the delegate requires."""
    o = options(op)
    if len(op.inputs) not in (20, 24) or len(op.outputs) != 1:
        raise UnsupportedOp(f"op#{op.index} LSTM: the full kernel needs 20 or 24 inputs and 1 output")
    x, out = _rows(ex, op, op.inputs[0]), _rows(ex, op, op.outputs[0])
    h_state, c_state = (op.input(i) for i in (OUTPUT_STATE, CELL_STATE))
    if h_state is None or c_state is None:
        raise UnsupportedOp(f"op#{op.index} LSTM: the output and cell state inputs are missing")
    h_var, c_var = _rows(ex, op, h_state), _rows(ex, op, c_state)
    if c_var.shape.b != 1:  # common/lstm_parser.cc ParseLSTMAttributes
        raise UnsupportedOp(f"op#{op.index} LSTM: batched execution is not supported (batch {c_var.shape.b})")
    units, size, width = c_var.shape.c, h_var.shape.c, x.shape.c
    cifg = op.input(INPUT_WEIGHTS[0]) is None
    weights = np.concatenate([np.concatenate([_constant(ex, op, INPUT_WEIGHTS[g], (units, width)),
                                              _constant(ex, op, RECURRENT_WEIGHTS[g], (units, size))], axis=1)
                              for g in KERNEL_GATE_ORDER])
    bias = np.concatenate([_constant(ex, op, BIASES[g], (units,)) for g in KERNEL_GATE_ORDER])
    peephole = np.concatenate([_constant(ex, op, i, (units,)) for i in PEEPHOLE_WEIGHTS])
    gates = ex.runtime.empty(BHWC(1, 1, 1, 4 * units))
    projected = op.input(PROJECTION_WEIGHTS) is not None
    cell_out = ex.runtime.empty(BHWC(1, 1, 1, units)) if projected else out
    cell_clip = max(o.cellClip, 0.0)
    # common/lstm_parser.cc HasNormalization: the forget gate's coefficients decide.
    if op.input(LAYER_NORM_WEIGHTS[1]) is not None:
        coefficients = np.concatenate([_constant(ex, op, LAYER_NORM_WEIGHTS[g], (units,)) for g in KERNEL_GATE_ORDER])
        steps = [_dense(ex, x, h_var, weights, np.zeros_like(bias), gates),
                 _normalized_cell(ex, gates, c_var, cell_out, peephole, coefficients, bias, cifg, cell_clip)]
    else:
        steps = [_dense(ex, x, h_var, weights, bias, gates),
                 _cell(ex, gates, c_var, c_var, cell_out, peephole, cifg, cell_clip, units)]
    if projected:
        steps.append(_dense(ex, cell_out, None, _constant(ex, op, PROJECTION_WEIGHTS, (size, units)),
                            _constant(ex, op, PROJECTION_BIAS, (size,)), out, max(o.projClip, 0.0)))
    elif size != units:
        raise UnsupportedOp(f"op#{op.index} LSTM: output state has {size} values for {units} units")
    from gpucompat.opencl.ops.movement import reshape_step

    steps.append(reshape_step(ex, out, h_var))
    return sequence(steps)
