"""Test models for the executor's LSTM, Resampler and SELECT kernels, written at the flatbuffer
level: the converter emits UNIDIRECTIONAL_SEQUENCE_LSTM rather than LSTM, never SELECT (v1), and
has no Resampler; a builtin twin of the Resampler (converted from TensorFlow ops) serves as the
reference `gpucompat verify --against` runs.
"""

from __future__ import annotations

from collections.abc import Sequence

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.ir import dtypes, opcodes
from modelgen import builder, const, convert_fn, tf

F = "float32"
LSTM_BASIC, LSTM_FULL = 1, 0  # schema LSTMKernelType
TANH = 4  # schema ActivationFunctionType


class FlatModel:
    """A one-subgraph model assembled record by record (tensors, ops, inputs, outputs)."""

    def __init__(self):
        self.model = fb.ModelT()
        self.model.version = 3
        self.model.buffers = [fb.BufferT()]
        self.model.operatorCodes = []
        self.graph = fb.SubGraphT()
        self.graph.tensors, self.graph.operators, self.graph.inputs, self.graph.outputs = [], [], [], []
        self.model.subgraphs = [self.graph]

    def tensor(self, name: str, shape: Sequence[int], value: np.ndarray | None = None, dtype=np.float32,
               variable: bool = False) -> int:
        """A new tensor's index: a constant when `value` is given, else a runtime (or variable) one."""
        rec = fb.TensorT()
        rec.name, rec.shape = name, np.asarray(shape, np.int32)
        rec.type = dtypes.from_numpy(np.dtype(dtype))
        rec.isVariable = variable
        if value is not None:
            buf = fb.BufferT()
            buf.data = np.frombuffer(np.ascontiguousarray(value, dtype).tobytes(), np.uint8)
            self.model.buffers.append(buf)
            rec.buffer = len(self.model.buffers) - 1
        self.graph.tensors.append(rec)
        return len(self.graph.tensors) - 1

    def op(self, name: str, inputs: Sequence[int], outputs: Sequence[int], options=None, version: int = 1,
           custom: str | None = None) -> None:
        """Append an op (a custom op when `custom` names its code)."""
        code = fb.OperatorCodeT()
        builtin = opcodes.BUILTIN["CUSTOM" if custom else name]
        code.builtinCode, code.deprecatedBuiltinCode = builtin, min(builtin, 127)
        code.customCode, code.version = custom, version
        self.model.operatorCodes.append(code)
        rec = fb.OperatorT()
        rec.opcodeIndex = len(self.model.operatorCodes) - 1
        rec.inputs, rec.outputs = list(inputs), list(outputs)
        if options is not None:
            rec.builtinOptionsType = getattr(fb.BuiltinOptions, type(options).__name__.removesuffix("T"))
            rec.builtinOptions = options
        self.graph.operators.append(rec)

    def finish(self, inputs: Sequence[int], outputs: Sequence[int]) -> bytes:
        """The .tflite bytes."""
        self.graph.inputs, self.graph.outputs = list(inputs), list(outputs)
        b = flatbuffers.Builder(0)
        b.Finish(self.model.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def lstm_options(kernel: int, cell_clip: float = 0.0, proj_clip: float = 0.0) -> fb.LSTMOptionsT:
    o = fb.LSTMOptionsT()
    o.fusedActivationFunction, o.kernelType, o.cellClip, o.projClip = TANH, kernel, cell_clip, proj_clip
    return o


def basic_lstm(batch: int, inputs: int, units: int, seed: int = 0) -> bytes:
    """LSTM with the basic kernel (kernels/lstm.cc basic): inputs (input, prev_activ, weights
    [4U, in + U], biases [4U], prev_state), outputs (activ, state, concat_temp, activ_temp)."""
    m = FlatModel()
    x = m.tensor("input", [batch, inputs])
    h = m.tensor("prev_activ", [batch, units])
    w = m.tensor("weights", [4 * units, inputs + units], const([4 * units, inputs + units], seed))
    b = m.tensor("biases", [4 * units], const([4 * units], seed + 1))
    c = m.tensor("prev_state", [batch, units])
    outs = [m.tensor(n, s) for n, s in (("activ", [batch, units]), ("state", [batch, units]),
                                        ("concat_temp", [batch, inputs + units]), ("activ_temp", [batch, 4 * units]))]
    m.op("LSTM", [x, h, w, b, c], outs, lstm_options(LSTM_BASIC), version=2)
    return m.finish([x, h, c], outs)


def full_lstm(inputs: int, units: int, cifg: bool = False, peephole: bool = False, projection: int = 0,
              layer_norm: bool = False, cell_clip: float = 0.0, proj_clip: float = 0.0, seed: int = 0,
              batch: int = 1) -> bytes:
    """LSTM with the full kernel (kernels/lstm.cc full, batch 1 as the delegate requires): 20
    inputs (24 with layer normalization), the states as variable tensors, gates in the file's
    order (input, forget, cell, output)."""
    m = FlatModel()
    out_size = projection or units
    gen = iter(range(seed, seed + 100))

    def weights(shape):
        return m.tensor(f"w{len(m.graph.tensors)}", shape, const(shape, next(gen)))

    x = m.tensor("input", [batch, inputs])
    skip_input_gate = [-1] if cifg else None
    ins = [x]
    ins += [*(skip_input_gate or [weights([units, inputs])]), *(weights([units, inputs]) for _ in range(3))]
    ins += [*(skip_input_gate or [weights([units, out_size])]), *(weights([units, out_size]) for _ in range(3))]
    if peephole:
        ins += [-1 if cifg else weights([units]), weights([units]), weights([units])]
    else:
        ins += [-1, -1, -1]
    ins += [*(skip_input_gate or [weights([units])]), *(weights([units]) for _ in range(3))]
    ins += [weights([out_size, units]), weights([out_size])] if projection else [-1, -1]
    ins += [m.tensor("output_state", [batch, out_size], variable=True),
            m.tensor("cell_state", [batch, units], variable=True)]
    if layer_norm:
        ins += [*(skip_input_gate or [weights([units])]), *(weights([units]) for _ in range(3))]
    out = m.tensor("output", [batch, out_size])
    m.op("LSTM", ins, [out], lstm_options(LSTM_FULL, cell_clip, proj_clip), version=1)
    return m.finish([x], [out])


def resampler(src: Sequence[int], warp: Sequence[int]) -> bytes:
    """The custom Resampler op (TF Addons): source [B, H, W, C], warp [B, h, w, 2] ->
    [B, h, w, C]; no custom options (the delegate's ResamplerOperationParser reads none)."""
    m = FlatModel()
    s, w = m.tensor("source", src), m.tensor("warp", warp)
    out = m.tensor("resampled", [src[0], warp[1], warp[2], src[3]])
    m.op("CUSTOM", [s, w], [out], custom="Resampler")
    return m.finish([s, w], [out])


def select_v1(cond: Sequence[int], shape: Sequence[int], cond_const: np.ndarray | None = None,
              else_const: np.ndarray | None = None) -> bytes:
    """SELECT (v1) of a bool condition (an input, or a constant) over float operands."""
    m = FlatModel()
    c = m.tensor("cond", cond, cond_const, dtype=np.bool_)
    t = m.tensor("then", shape)
    e = m.tensor("else", shape, else_const)
    out = m.tensor("selected", shape)
    m.op("SELECT", [c, t, e], [out])
    runtime = [i for i, v in ((c, cond_const), (t, None), (e, else_const)) if v is None]
    return m.finish(runtime, [out])


LSTM_BASIC_SHAPES = [(1, 3, 4), (2, 5, 3), (1, 7, 9)]  # (batch, inputs, units)
for _b, _i, _u in LSTM_BASIC_SHAPES:
    builder(f"x_lstm_basic_{_b}x{_i}x{_u}")(lambda b=_b, i=_i, u=_u: basic_lstm(b, i, u))

LSTM_FULL_VARIANTS = {
    "plain": dict(inputs=3, units=5),
    "wide": dict(inputs=6, units=8),
    "cifg": dict(inputs=4, units=3, cifg=True),
    "peephole": dict(inputs=5, units=6, peephole=True),
    "cifg_peephole": dict(inputs=3, units=7, cifg=True, peephole=True),
    "projection": dict(inputs=4, units=6, projection=3),
    "clips": dict(inputs=4, units=5, projection=7, cell_clip=0.3, proj_clip=0.35),
    "layer_norm": dict(inputs=3, units=4, layer_norm=True),
    "layer_norm_cifg": dict(inputs=4, units=5, cifg=True, peephole=True, layer_norm=True),
    "layer_norm_projection": dict(inputs=3, units=6, projection=4, peephole=True, layer_norm=True, proj_clip=0.5),
    "batch2": dict(inputs=3, units=4, batch=2),  # the delegate refuses it at Parse
}
for _name, _kw in LSTM_FULL_VARIANTS.items():
    builder(f"x_lstm_full_{_name}")(lambda kw=_kw: full_lstm(**kw))

RESAMPLER_SHAPES = [((1, 5, 6, 3), (1, 4, 7, 2)), ((1, 8, 8, 8), (1, 3, 5, 2)), ((2, 4, 3, 5), (2, 6, 2, 3))]
for _s, _w in RESAMPLER_SHAPES:
    builder("x_resampler_" + "_".join("x".join(map(str, v)) for v in (_s, _w)))(lambda s=_s, w=_w: resampler(s, w))

SELECT_VARIANTS = {
    "same_shape": ((2, 3, 5), (2, 3, 5), None, None),
    "rows": ((3,), (3, 4, 6), None, None),
    "rows_rank2": ((5,), (5, 7), None, None),
    "const_rows": ((4,), (4, 2, 3), np.array([True, False, False, True]), None),
    "const_else": ((1, 3, 3, 5), (1, 3, 3, 5), None, const((1, 3, 3, 5), 9)),
}
for _name, (_c, _s, _cc, _ec) in SELECT_VARIANTS.items():
    builder(f"x_select_{_name}")(lambda c=_c, s=_s, cc=_cc, ec=_ec: select_v1(c, s, cc, ec))


@builder("x_resampler_twin")
def resampler_twin() -> bytes:
    """x_resampler_1x5x6x3_1x4x7x2 in builtin ops (FLOOR, GATHER, comparisons): TF Addons'
    definition of the resampler, bilinear with zeros outside the source, for the reference
    interpreter."""
    t = tf()
    (_, h, w, c), _ = RESAMPLER_SHAPES[0]

    def f(source, warp):
        x, y = warp[..., 0], warp[..., 1]
        x0, y0 = t.floor(x), t.floor(y)
        flat = t.reshape(source, [h * w, c])

        def tap(xi, yi):
            inside = t.cast((xi >= 0.0) & (xi <= w - 1.0) & (yi >= 0.0) & (yi <= h - 1.0), t.float32)
            index = t.cast(t.clip_by_value(yi, 0.0, h - 1.0) * w + t.clip_by_value(xi, 0.0, w - 1.0), t.int32)
            return t.gather(flat, index) * inside[..., None]

        dx, dy = (x - x0)[..., None], (y - y0)[..., None]
        top = tap(x0, y0) * (1.0 - dx) + tap(x0 + 1.0, y0) * dx
        bottom = tap(x0, y0 + 1.0) * (1.0 - dx) + tap(x0 + 1.0, y0 + 1.0) * dx
        return top * (1.0 - dy) + bottom * dy

    src, warp = RESAMPLER_SHAPES[0]
    return convert_fn(f, [(src, F), (warp, F)])
