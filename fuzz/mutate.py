"""Mutations of a valid model, at the byte level (flips, truncation, splices, length fields) and at
the structure level through the flatbuffer object API (indices, dimensions, buffers, graph shape,
subgraphs, options, quantization, names). Every mutation is a function of a seeded
`random.Random`, so a case is reproduced from its seed and number alone."""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb

INTS = [0, 1, -1, 2, 3, 4, 5, 7, 8, 16, 100, 127, 128, 255, 256, -128, 4096, 32767, -32768, 65535, 65536,
        1 << 20, 1 << 24, (1 << 31) - 1, -(1 << 31), (1 << 32) - 1, 1 << 40]
FLOATS = [0.0, -0.0, 1e-45, -1.0, 0.5, 1e38, 3.4e38, 1e300, float("nan"), float("inf"), float("-inf")]
HOSTILE_NAMES = [
    "", " ", "\n", "a\nb", "line\r\noverwrite", "\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x07link\x1b]8;;\x07",
    "\x1b[2J\x1b[H", "[bold red]markup[/]", "[/]", "[link=javascript:alert(1)]x[/link]", "[", "]",
    "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "{{ 7*7 }}", "{% raw %}", "${x}", "%s%n",
    "{0}", "\x00", "a\x00b", "\u202eevil", "\ud800" , "é" * 3, "🙂", "../../etc/passwd", "/", "C:\\x",
    "x" * 100_000, "::error::injected", "%0A::warning::x", "`rm -rf`", "'; DROP TABLE", "\t\v\f",
]


def interesting_int(rng: random.Random, limit: int | None = None) -> int:
    """A boundary value, or one just past `limit` (a count the value is meant to stay under)."""
    if limit is not None and rng.random() < 0.4:
        return rng.choice([limit, limit + 1, -1, -2, limit * 2 + 7])
    return rng.choice(INTS)


def hostile_name(rng: random.Random) -> str | bytes:
    """A name that tries to break a terminal, a markup renderer, a template or a path."""
    if rng.random() < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))  # not UTF-8
    return rng.choice(HOSTILE_NAMES)


# ---------------------------------------------------------------- byte level

def flip_bits(rng: random.Random, raw: bytearray, _other: bytes) -> bytearray:
    for _ in range(rng.randint(1, 16)):
        i = rng.randrange(8 if rng.random() < 0.95 else 0, len(raw))
        raw[i] ^= 1 << rng.randrange(8)
    return raw


def set_bytes(rng: random.Random, raw: bytearray, _other: bytes) -> bytearray:
    for _ in range(rng.randint(1, 8)):
        raw[rng.randrange(8, len(raw))] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
    return raw


def truncate(rng: random.Random, raw: bytearray, _other: bytes) -> bytearray:
    return raw[: rng.randrange(0, len(raw))]


def splice(rng: random.Random, raw: bytearray, other: bytes) -> bytearray:
    """The head of this model followed by the tail of another."""
    return raw[: rng.randrange(8, len(raw))] + other[rng.randrange(0, len(other)):]


def insert_delete(rng: random.Random, raw: bytearray, _other: bytes) -> bytearray:
    i = rng.randrange(8, len(raw))
    n = rng.choice([1, 2, 4, 8, rng.randrange(1, 256)])
    if rng.random() < 0.5:
        return raw[:i] + raw[i + n:]
    return raw[:i] + bytes(rng.randrange(256) for _ in range(n)) + raw[i:]


def length_field(rng: random.Random, raw: bytearray, _other: bytes) -> bytearray:
    """Change a 32-bit word that looks like a vector length or an offset (a small aligned value)."""
    words = [p for p in range(8, len(raw) - 3, 4) if 0 < struct.unpack_from("<I", raw, p)[0] < 4096]
    if not words:
        return flip_bits(rng, raw, b"")
    p = rng.choice(words)
    v = struct.unpack_from("<I", raw, p)[0]
    new = rng.choice([0, v + 1, v - 1, v * 2, v + 4, v * 1000, 0x7FFFFFFF, 0xFFFFFFFF, len(raw), len(raw) - p])
    struct.pack_into("<I", raw, p, new & 0xFFFFFFFF)
    return raw


BYTE_MUTATIONS: dict[str, Callable[[random.Random, bytearray, bytes], bytearray]] = {
    f.__name__: f for f in (flip_bits, set_bytes, truncate, splice, insert_delete, length_field)
}


# ---------------------------------------------------------------- structure level

def _graph(rng: random.Random, m) -> object:
    return rng.choice(m.subgraphs)


def _op(rng: random.Random, m):
    g = rng.choice([g for g in m.subgraphs if g.operators] or m.subgraphs)
    return g, (rng.choice(g.operators) if g.operators else None)


def _tensor(rng: random.Random, m):
    g = rng.choice([g for g in m.subgraphs if g.tensors] or m.subgraphs)
    return g, (rng.choice(g.tensors) if g.tensors else None)


def _ints(values) -> list[int]:
    return [int(v) for v in (values if values is not None else [])]


def tensor_index(rng: random.Random, m) -> None:
    """An operator or graph input/output index out of range, optional (-1) or pointing elsewhere."""
    g, op = _op(rng, m)
    n = len(g.tensors or [])
    holders = [(g, "inputs"), (g, "outputs")] + ([(op, "inputs"), (op, "outputs"), (op, "intermediates")] if op else [])
    obj, field = rng.choice(holders)
    values = _ints(getattr(obj, field)) or [0]
    values[rng.randrange(len(values))] = rng.choice([interesting_int(rng, n), rng.randrange(max(n, 1))])
    setattr(obj, field, values)


def opcode_index(rng: random.Random, m) -> None:
    _, op = _op(rng, m)
    if op is not None:
        op.opcodeIndex = rng.choice([len(m.operatorCodes or []), (1 << 32) - 1, 1 << 20,
                                     rng.randrange(max(len(m.operatorCodes or []), 1))])


def builtin_code(rng: random.Random, m) -> None:
    """An op code outside the enum, another op's code (wrong inputs and options), CUSTOM, odd versions."""
    if not m.operatorCodes:
        return
    c = rng.choice(m.operatorCodes)
    choice = rng.randrange(4)
    if choice == 0:
        c.builtinCode = rng.choice([-5, 9999, (1 << 31) - 1, 127, 128, 209, 210, 255, 1000])
    elif choice == 1:
        c.builtinCode = rng.randrange(0, 210)
        c.deprecatedBuiltinCode = min(c.builtinCode, 127)
    elif choice == 2:
        c.builtinCode = c.deprecatedBuiltinCode = fb.BuiltinOperator.CUSTOM
        known = ["Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "TFLite_Detection_PostProcess", "FlexAddV2"]
        c.customCode = hostile_name(rng) if rng.random() < 0.5 else rng.choice(known)
    else:
        c.version = rng.choice([0, -1, 99, (1 << 31) - 1])
    if rng.random() < 0.3:
        c.deprecatedBuiltinCode = rng.choice([0, 127, -128, -1, 42])


def buffer_index(rng: random.Random, m) -> None:
    _, t = _tensor(rng, m)
    if t is not None:
        t.buffer = rng.choice([len(m.buffers or []), (1 << 32) - 1, 0, rng.randrange(max(len(m.buffers or []), 1))])


def dimensions(rng: random.Random, m) -> None:
    """Negative, zero, huge dimensions; rank 0, high ranks, and shape signatures that disagree."""
    _, t = _tensor(rng, m)
    if t is None:
        return
    shape = _ints(t.shape)
    kind = rng.randrange(5)
    if kind == 0 and shape:
        shape[rng.randrange(len(shape))] = rng.choice([0, -1, -7, 65535, 1 << 20, (1 << 31) - 1, -(1 << 31)])
    elif kind == 1:
        shape = [rng.choice([1, 2, 3, 1 << 16, (1 << 31) - 1]) for _ in range(rng.choice([0, 5, 6, 8, 17, 64]))]
    elif kind == 2:
        rank = rng.choice([len(shape), len(shape) + 1, 1])
        t.shapeSignature = [rng.choice([-1, -2, 0, 1, 1 << 30]) for _ in range(rank)]
    elif kind == 3:
        shape = [(1 << 15)] * 4  # 2^60 elements claimed
    else:
        t.shape = None
        return
    t.shape = shape


def tensor_type(rng: random.Random, m) -> None:
    _, t = _tensor(rng, m)
    if t is not None:
        t.type = rng.choice([-1, 99, 127, -128] + list(range(0, 20)))


def buffer_size(rng: random.Random, m) -> None:
    """Constant data shorter or longer than its shape, shared buffers, data on activations, offsets."""
    _, t = _tensor(rng, m)
    bufs = m.buffers or []
    if t is None or not bufs:
        return
    kind = rng.randrange(4)
    if kind == 0 and 0 < t.buffer < len(bufs) and bufs[t.buffer].data is not None:
        data = np.asarray(bufs[t.buffer].data, dtype=np.uint8)
        cut = rng.random() < 0.6
        bufs[t.buffer].data = data[: rng.randrange(len(data) + 1)] if cut else np.concatenate([data, data])
    elif kind == 1:
        t.buffer = rng.randrange(len(bufs))
    elif kind == 2:
        b = fb.BufferT()
        b.data = np.frombuffer(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 64))), dtype=np.uint8)
        bufs.append(b)
        t.buffer = len(bufs) - 1
    else:
        b = rng.choice(bufs)
        b.data = None
        b.offset, b.size = rng.choice([(1 << 40, 16), (16, 1 << 40), (2, 0), ((1 << 64) - 1, 1), (8, 4096)])


def self_loop(rng: random.Random, m) -> None:
    _, op = _op(rng, m)
    ins, outs = _ints(op.inputs if op else None), _ints(op.outputs if op else None)
    if ins and outs:
        ins[rng.randrange(len(ins))] = rng.choice(outs)
        op.inputs = ins


def cycle(rng: random.Random, m) -> None:
    """An earlier op consumes a later op's output (a cycle when the later one depends on it)."""
    g = _graph(rng, m)
    ops = g.operators or []
    if len(ops) < 2:
        return self_loop(rng, m)
    a, b = sorted(rng.sample(range(len(ops)), 2))
    ins, outs = _ints(ops[a].inputs), _ints(ops[b].outputs)
    if ins and outs:
        ins[rng.randrange(len(ins))] = rng.choice(outs)
        ops[a].inputs = ins


def produced_twice(rng: random.Random, m) -> None:
    g = _graph(rng, m)
    ops = g.operators or []
    if len(ops) < 2:
        return
    a, b = rng.sample(ops, 2)
    outs = _ints(b.outputs)
    if outs and a.outputs is not None and len(a.outputs):
        outs[0] = int(a.outputs[0])
        b.outputs = outs


def missing_subgraph(rng: random.Random, m) -> None:
    """Drop a subgraph (control flow then points past the list), or point control flow elsewhere."""
    kind = rng.randrange(3)
    if kind == 0 and len(m.subgraphs) > 1:
        del m.subgraphs[rng.randrange(1, len(m.subgraphs))]
    elif kind == 1:
        m.subgraphs = [] if rng.random() < 0.3 else [None] if rng.random() < 0.5 else m.subgraphs[:1]
    else:
        for g in m.subgraphs:
            for op in g.operators or []:
                if isinstance(op.builtinOptions, (fb.WhileOptionsT, fb.IfOptionsT, fb.CallOnceOptionsT)):
                    for field in vars(op.builtinOptions):
                        setattr(op.builtinOptions, field, rng.choice([0, -1, len(m.subgraphs), 1 << 30]))


def option_type(rng: random.Random, m) -> None:
    """Options of another op's type, no options at all, or a union type with no matching record."""
    _, op = _op(rng, m)
    if op is None:
        return
    names = [k for k, v in vars(fb.BuiltinOptions).items() if not k.startswith("_") and k != "NONE"]
    kind = rng.randrange(3)
    if kind == 0:
        name = rng.choice(names)
        op.builtinOptionsType = getattr(fb.BuiltinOptions, name)
        op.builtinOptions = getattr(fb, name + "T")()
    elif kind == 1:
        op.builtinOptionsType, op.builtinOptions = 0, None
    else:
        # the record stays, the type tag names another table: the reader decodes it as that table
        op.builtinOptionsType = rng.randrange(1, len(names) + 1)
        if op.builtinOptions is None:
            op.builtinOptions = fb.Conv2DOptionsT()


def option_values(rng: random.Random, m) -> None:
    """A boundary value in one option field (stride 0, axis 99, padding 7, activation -1, ...)."""
    _, op = _op(rng, m)
    opts = getattr(op, "builtinOptions", None)
    fields = [k for k, v in vars(opts).items() if isinstance(v, (int, float, list, np.ndarray))] if opts else []
    if not fields:
        return
    field = rng.choice(fields)
    value = getattr(opts, field)
    if isinstance(value, bool):
        setattr(opts, field, not value)
    elif isinstance(value, float):
        setattr(opts, field, rng.choice(FLOATS))
    elif isinstance(value, int):
        setattr(opts, field, interesting_int(rng, 4))
    else:
        setattr(opts, field, [interesting_int(rng) for _ in range(rng.randrange(0, 6))])


def quantization(rng: random.Random, m) -> None:
    """Zero, negative, NaN or infinite scales; huge zero points; per-channel lists of the wrong
    length; a quantized dimension past the rank."""
    _, t = _tensor(rng, m)
    if t is None:
        return
    q = t.quantization or fb.QuantizationParametersT()
    n = rng.choice([0, 1, 2, 3, 4, 7, 1000])
    with np.errstate(over="ignore"):  # 1e300 becomes inf in float32, as intended
        q.scale = np.asarray([rng.choice(FLOATS + [0.1]) for _ in range(n)], dtype=np.float32)
    q.zeroPoint = np.asarray([rng.choice([0, -129, 128, 255, 1 << 40, -(1 << 62)])
                              for _ in range(rng.choice([n, 0, 1, n + 1]))], dtype=np.int64)
    q.quantizedDimension = rng.choice([0, 3, 4, 99, -1, (1 << 31) - 1])
    if rng.random() < 0.3:
        q.min, q.max = [rng.choice(FLOATS)], [rng.choice(FLOATS)]
    t.quantization = q
    if rng.random() < 0.5:
        t.type = rng.choice([fb.TensorType.INT8, fb.TensorType.UINT8, fb.TensorType.INT16, fb.TensorType.INT32])


def duplicate_outputs(rng: random.Random, m) -> None:
    g = _graph(rng, m)
    field = rng.choice(["outputs", "inputs"])
    values = _ints(getattr(g, field))
    if values:
        setattr(g, field, values + [rng.choice(values)] * rng.randint(1, 3))
    _, op = _op(rng, m)
    if op is not None and rng.random() < 0.5 and op.outputs is not None and len(op.outputs):
        op.outputs = _ints(op.outputs) * 2


def names(rng: random.Random, m) -> None:
    """Hostile or empty names on tensors, subgraphs, signatures, metadata and custom op codes."""
    for _ in range(rng.randint(1, 4)):
        where = rng.randrange(5)
        value = hostile_name(rng)
        if where == 0:
            _, t = _tensor(rng, m)
            if t is not None:
                t.name = value
        elif where == 1:
            _graph(rng, m).name = value
        elif where == 2:
            m.description = value
        elif where == 3:
            for sig in m.signatureDefs or []:
                sig.signatureKey = value
                for tm in [*(sig.inputs or []), *(sig.outputs or [])]:
                    tm.name = hostile_name(rng)
        else:
            md = fb.MetadataT()
            md.name, md.buffer = value, rng.choice([0, 1, len(m.buffers or []) + 5])
            m.metadata = [*(m.metadata or []), md]


def operand_count(rng: random.Random, m) -> None:
    """Too few or too many operands, or an optional (-1) operand where one is required."""
    g, op = _op(rng, m)
    if op is None:
        return
    field = rng.choice(["inputs", "outputs"])
    values = _ints(getattr(op, field))
    kind = rng.randrange(3)
    if kind == 0:
        values = values[: rng.randrange(len(values) + 1)]
    elif kind == 1:
        values += [rng.randrange(max(len(g.tensors or []), 1)) for _ in range(rng.randint(1, 5))]
    elif values:
        values[rng.randrange(len(values))] = -1
    setattr(op, field, values)


def signatures(rng: random.Random, m) -> None:
    sig = fb.SignatureDefT()
    sig.signatureKey = rng.choice(["serving_default", "", "x"])
    sig.subgraphIndex = rng.choice([0, 1, len(m.subgraphs), (1 << 31) - 1])
    tm = fb.TensorMapT()
    tm.name, tm.tensorIndex = "in", rng.choice([0, 1, 10_000, (1 << 32) - 1])
    sig.inputs, sig.outputs = [tm], [tm] if rng.random() < 0.5 else []
    m.signatureDefs = [*(m.signatureDefs or []), sig]


def sparsity(rng: random.Random, m) -> None:
    _, t = _tensor(rng, m)
    if t is None:
        return
    sp = fb.SparsityParametersT()
    sp.traversalOrder = [interesting_int(rng, 4) for _ in range(rng.randrange(0, 6))]
    sp.blockMap = [interesting_int(rng, 4) for _ in range(rng.randrange(0, 3))]
    dm = fb.DimensionMetadataT()
    dm.format, dm.denseSize = rng.choice([0, 1, 5]), interesting_int(rng)
    sp.dimMetadata = [dm] * rng.randrange(0, 4)
    t.sparsity = sp


def deep_chain(rng: random.Random, m) -> None:
    """Thousands of ops in one chain (a long plan, a deep graph for anything recursive)."""
    g = m.subgraphs[0]
    if g.outputs is None or not len(g.outputs) or not g.tensors:
        return
    code = len(m.operatorCodes)
    rec = fb.OperatorCodeT()
    rec.builtinCode = rec.deprecatedBuiltinCode = rng.choice([fb.BuiltinOperator.RELU, fb.BuiltinOperator.CUMSUM,
                                                              fb.BuiltinOperator.LOGISTIC])
    rec.version = 1
    m.operatorCodes.append(rec)
    prev = int(g.outputs[0])
    template = g.tensors[prev]
    for i in range(rng.choice([500, 2000, 5000])):
        t = fb.TensorT()
        t.name, t.type, t.shape, t.buffer = f"chain{i}", template.type, template.shape, 0
        g.tensors.append(t)
        op = fb.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = code, [prev], [len(g.tensors) - 1]
        g.operators.append(op)
        prev = len(g.tensors) - 1
    g.outputs = [prev]


def any_field(rng: random.Random, m) -> None:
    """A boundary value in any scalar or vector field anywhere in the model record."""
    fields = []

    def walk(obj, depth):
        if depth > 6:
            return
        for k, v in vars(obj).items():
            if isinstance(v, bool) or isinstance(v, (int, float)) or (isinstance(v, np.ndarray) and v.size < 4096):
                fields.append((obj, k, v))
            elif isinstance(v, list):
                for item in v[:50]:
                    if hasattr(item, "__dict__"):
                        walk(item, depth + 1)
                if v and all(isinstance(x, int) for x in v):
                    fields.append((obj, k, v))
            elif hasattr(v, "__dict__"):
                walk(v, depth + 1)

    walk(m, 0)
    obj, k, v = rng.choice(fields)
    if isinstance(v, float):
        setattr(obj, k, rng.choice(FLOATS))
    elif isinstance(v, (int, bool)):
        setattr(obj, k, interesting_int(rng, 8))
    elif len(v):
        arr = np.array(v, copy=True)
        i = rng.randrange(len(arr))
        if arr.dtype.kind == "f":
            arr[i] = rng.choice(FLOATS)
        else:
            info = np.iinfo(arr.dtype)
            arr[i] = min(max(interesting_int(rng, len(arr)), int(info.min)), int(info.max))
        setattr(obj, k, arr)


STRUCT_MUTATIONS: dict[str, Callable[[random.Random, object], None]] = {
    f.__name__: f for f in (tensor_index, opcode_index, builtin_code, buffer_index, dimensions, tensor_type,
                            buffer_size, self_loop, cycle, produced_twice, missing_subgraph, option_type,
                            option_values, quantization, duplicate_outputs, names, operand_count, signatures,
                            sparsity, deep_chain, any_field)
}


def pack(record) -> bytes:
    """Serialise a ModelT record (raises when a mutated field does not fit its schema type)."""
    b = flatbuffers.Builder(1 << 16)
    b.Finish(record.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def mutate(rng: random.Random, raw: bytes, other: bytes) -> tuple[str, bytes]:
    """One mutated model from `raw` (and `other`, for splices): (what was done, bytes). Structure
    mutations are stacked 1-3 deep; a stack whose values cannot be encoded is drawn again."""
    if rng.random() < 0.35:
        name = rng.choice(sorted(BYTE_MUTATIONS))
        return name, bytes(BYTE_MUTATIONS[name](rng, bytearray(raw), other))
    for _ in range(20):
        record = fb.ModelT.InitFromPackedBuf(bytearray(raw), 0)
        chosen = [rng.choice(sorted(STRUCT_MUTATIONS)) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
        try:
            for name in chosen:
                STRUCT_MUTATIONS[name](rng, record)
            return "+".join(chosen), pack(record)
        except Exception:  # noqa: BLE001 - the fuzzer's own draw failed (a value the schema cannot hold): draw again
            continue
    return "flip_bits", bytes(flip_bits(rng, bytearray(raw), other))
