"""Read a .tflite file into the IR, turning every kind of bad input into a one-line ModelError."""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Callable
from typing import NoReturn

import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.errors import ModelError
from gpucompat.ir import dtypes, litertlm, options
from gpucompat.ir.foreign import recognise
from gpucompat.ir.graph import Graph
from gpucompat.ir.mapped import map_file
from gpucompat.ir.model import Model
from gpucompat.ir.nodes import Op, OpCode, Tensor
from gpucompat.ir.unpack import unpack_model

FILE_IDENTIFIER = b"TFL3"
_PLACEHOLDER_FOR_GREATER_OP_CODES = 127
# Builtin ops whose kernels declare no outputs (tensorflow/lite/kernels/assign_variable.cc and
# call_once.cc: TF_LITE_ENSURE_EQ(context, NumOutputs(node), 0)); every other kernel requires at
# least one, so an op without outputs fails at the runtime's Prepare.
_NO_OUTPUTS = frozenset({fb.BuiltinOperator.ASSIGN_VARIABLE, fb.BuiltinOperator.CALL_ONCE})
# Operands the kernels read unconditionally (conv.cc, depthwise_conv.cc, fully_connected.cc,
# transpose_conv.cc: GetInput / GetInputSafe of the data, filter and, for TRANSPOSE_CONV, output
# shape tensors): absent or optional (-1) there, the runtime refuses the model at Prepare.
# cumsum.cc reads its data and axis operands the same way.
_REQUIRED_INPUTS = {fb.BuiltinOperator.CONV_2D: 2, fb.BuiltinOperator.DEPTHWISE_CONV_2D: 2,
                    fb.BuiltinOperator.FULLY_CONNECTED: 2, fb.BuiltinOperator.TRANSPOSE_CONV: 3,
                    fb.BuiltinOperator.CUMSUM: 2}
# Builtin ops whose kernels may take no operand (state handles, CALL_ONCE, a WHILE without loop
# variables); every other builtin kernel reads its first operand, which is never optional there.
_NO_INPUTS = frozenset({fb.BuiltinOperator.CALL_ONCE, fb.BuiltinOperator.VAR_HANDLE, fb.BuiltinOperator.HASHTABLE,
                        fb.BuiltinOperator.WHILE})
# Ops whose kernels compute their output size from the options' strides (padding.h ComputeOutSize:
# `if (stride == 0) return 0`): without their options table the runtime's zero-initialised params
# (flatbuffer_conversions.cc leaves them so when builtin_options_as_<Table>() is null) give an
# output with no elements.
_STRIDED = frozenset({fb.BuiltinOperator.CONV_2D, fb.BuiltinOperator.DEPTHWISE_CONV_2D,
                      fb.BuiltinOperator.AVERAGE_POOL_2D, fb.BuiltinOperator.MAX_POOL_2D,
                      fb.BuiltinOperator.L2_POOL_2D})
_SIGNATURES = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"PK\x03\x04": "a zip archive (a Keras or .task bundle?)",
    b"\x08\x01\x12": "a protocol buffer (a TensorFlow SavedModel or ONNX file?)",
    b"\x1f\x8b": "a gzip archive",
    b"{": "a JSON file",
}


def map_model(path: str):
    """The model's bytes, mapped read-only (nothing is read until used): the file, or for
    `BUNDLE::section N` that section of a LiteRT-LM bundle; a ModelError saying why not."""
    bundle, section = litertlm.split(path)
    if section is None or not os.path.isfile(bundle):
        return map_file(path)
    return litertlm.section_bytes(bundle, map_file(bundle), section)


def read_bytes(path: str) -> bytes:
    """The model's bytes, read into memory (for runtimes that take bytes); see map_model."""
    return bytes(map_model(path))


def sniff(path: str, raw) -> None:
    """Raise a ModelError naming what the file is when it is clearly not a TFLite model."""
    if not len(raw):
        raise ModelError(path, "is empty (0 bytes)")
    head = bytes(raw[:32])
    if head.startswith(b"version https://git-lfs"):
        raise ModelError(path, "is a Git LFS pointer, not the model: run `git lfs pull` to fetch it")
    if len(head) >= 8 and head[4:8] == FILE_IDENTIFIER:
        return
    if head.startswith(litertlm.MAGIC):
        models = [litertlm.section_path(path, s.index) for s in litertlm.sections(path, raw) if s.is_tflite]
        named = f": name its TFLite model{'s' * (len(models) > 1)} as {', '.join(repr(m) for m in models)}" \
            if models else " and holds no TFLite model"
        raise ModelError(path, f"is a LiteRT-LM bundle, not a single TFLite model{named}")
    foreign = recognise(path, head)
    if foreign:
        raise ModelError(path, f"is {foreign}")
    for magic, what in _SIGNATURES.items():
        if head.startswith(magic):
            raise ModelError(path, f"is {what}, not a TFLite model")
    if len(raw) < 8:
        raise ModelError(path, f"is too short to be a TFLite model ({len(raw)} bytes)")
    raise ModelError(path, "is not a TFLite model (no 'TFL3' file identifier)")


def load(path: str) -> Model:
    """Load and validate a .tflite file (or a bundle's section), mapped: weights stay on disk
    until a rule reads them."""
    return from_bytes(map_model(path), path)


def from_bytes(raw, path: str = "<bytes>") -> Model:
    """Build the IR from a model's bytes (bytes, or a FileMap that untouched buffers are later
    copied from); `path` is only used in messages. Buffers' data are views of `raw`."""
    sniff(path, raw)
    try:
        record = unpack_model(raw, struct.unpack_from("<I", raw, 0)[0])
    except struct.error as e:  # a read past the end: the file stops before its own structure does
        raise ModelError(path, _truncated(len(raw), str(e))) from None
    except Exception as e:  # a corrupt flatbuffer can fail anywhere in the generated reader
        raise ModelError(path, f"is not a valid TFLite flatbuffer ({type(e).__name__}: {e})") from None
    model = Model(record, path)
    model.source = raw
    _resolve_offset_buffers(model, raw, path)
    _build(model, path)
    return model


def _truncated(size: int, detail: str) -> str:
    """The message for a model whose flatbuffer reads past the file's end: it looks cut short (an
    interrupted download or copy), with how far it was read beside the file's size."""
    wanted = re.search(r"at least (\d+) bytes", detail)
    needs = f", but its structure reaches byte {int(wanted.group(1)):,} at least" if wanted else ""
    return f"looks truncated: the file is {size:,} bytes{needs} (an interrupted download or copy?)"


def _resolve_offset_buffers(model: Model, raw, path: str) -> None:
    """Large models store constants after the flatbuffer (offset/size): their data become views
    of the file too, and the model remembers the layout so the writer keeps it."""
    for i, b in enumerate(model.buffers):
        if b is None:
            raise ModelError(path, f"buffer {i} is missing")
        if b.offset > 1:
            end = b.offset + b.size
            if end > len(raw):
                raise ModelError(path, f"buffer {i} points outside the file (offset {b.offset}, size {b.size})")
            b.data = np.frombuffer(raw, dtype=np.uint8, count=b.size, offset=b.offset)
            b.offset, b.size = 0, 0
            model.offset_buffers = True


def opcode_of(rec) -> OpCode:
    """The OpCode of an OperatorCodeT (the real code is the larger of the two code fields)."""
    builtin = max(int(rec.builtinCode), int(rec.deprecatedBuiltinCode))
    custom = rec.customCode.decode("utf-8", "replace") if isinstance(rec.customCode, bytes) else rec.customCode
    return OpCode(builtin, custom, int(rec.version or 1))


def _indices(values, what: str, limit: int, path: str, allow_optional: bool) -> list[int]:
    """The tensor indices of an operand list; `what` names the list in the message when one is
    out of range."""
    if values is None:
        return []
    out = values if type(values) is list else [int(v) for v in values]  # the reader's lists hold ints already
    low = -1 if allow_optional else 0
    if out and (max(out) >= limit or min(out) < low):
        bad = next(v for v in out if v >= limit or v < low)
        raise ModelError(path, f"{what} refers to tensor {bad}, "
                               f"but there are only {limit} tensors")
    return out


def _build(model: Model, path: str) -> None:
    rec = model.fb
    if not rec.subgraphs:
        raise ModelError(path, "has no subgraphs")
    codes = [opcode_of(c) if c is not None else None for c in (rec.operatorCodes or [])]
    n_buffers = len(model.buffers)
    for gi, sg in enumerate(rec.subgraphs):
        if sg is None:
            raise ModelError(path, f"subgraph {gi} is missing")
        g = Graph(sg, model)
        model.graphs.append(g)
        for ti, t in enumerate(sg.tensors or []):
            if t is None:
                raise ModelError(path, f"subgraph {gi}: tensor {ti} is missing")
            _validate_tensor(t, gi, ti, n_buffers, path)
            g.tensors.append(Tensor(t, g))
        n = len(g.tensors)
        where = f"subgraph {gi}"
        g.inputs = [g.tensors[i] for i in _indices(sg.inputs, f"{where} input list", n, path, False)]
        g.outputs = [g.tensors[i] for i in _indices(sg.outputs, f"{where} output list", n, path, False)]
        tensors = g.tensors
        by_index = dict(enumerate(tensors))  # what an operand list may name: a KeyError is out of range
        optional = {**by_index, -1: None}  # an input may also be absent
        for oi, o in enumerate(sg.operators or []):
            if o is None:
                raise ModelError(path, f"{where}: operator {oi} is missing")
            code = codes[o.opcodeIndex] if 0 <= o.opcodeIndex < len(codes) else None
            if code is None:
                raise ModelError(path, f"{where}: operator {oi} has op code index {o.opcodeIndex}, "
                                       f"but the model has {len(codes)} op codes")
            try:
                ins = [optional[i] for i in o.inputs] if o.inputs is not None else []
                outs = [by_index[i] for i in o.outputs] if o.outputs is not None else []
                mids = [by_index[i] for i in o.intermediates] if o.intermediates is not None else ()
            except KeyError:
                _operand_error(o, f"{where} operator {oi}", n, path)
            g.ops.append(Op(o, g, code, ins, outs, mids))
        try:
            g.link()
        except Exception as e:
            raise ModelError(path, str(e)) from None
        _validate_operands(g, path)
    _link_signatures(model, path)
    _link_quantization(model, path)


def _operand_error(o, what: str, limit: int, path: str) -> NoReturn:
    """Raise the ModelError naming the first operand list of operator `o` that refers to a
    tensor out of range."""
    _indices(o.inputs, what, limit, path, True)
    _indices(o.outputs, what, limit, path, False)
    _indices(o.intermediates, what, limit, path, False)
    raise AssertionError(f"{what}: no operand out of range")


def _validate_operands(g: Graph, path: str) -> None:
    """Refuse what the runtime refuses at Prepare and what would make it read undefined memory:
    an op without outputs, a required operand missing, a tensor read by an op that nothing
    writes (not an input, a constant, a variable or an op's output; an empty tensor, such as the
    converter's shape operand of a reshape to a scalar, holds nothing to read)."""
    inputs = {id(t) for t in g.inputs}
    gi = g.index

    def where(i: int, op: Op) -> str:  # only for the message: it costs more than the checks
        return f"subgraph {gi}: operator {i} ({op.name})"

    for i, op in enumerate(g.ops):
        builtin = op.code.builtin
        if builtin in options.EXPECTED:
            _validate_options(op, lambda i=i, op=op: where(i, op), path)
        if not op.outputs and builtin not in _NO_OUTPUTS:
            raise ModelError(path, f"{where(i, op)} has no outputs")
        required = _REQUIRED_INPUTS.get(builtin, 0 if op.is_custom or builtin in _NO_INPUTS else 1)
        if required and None in op.inputs[:required] or len(op.inputs) < required:
            missing = next(k for k in range(required) if op.input(k) is None)
            raise ModelError(path, f"{where(i, op)} lacks input {missing}, which its kernel requires")
        for t in op.inputs:
            if (t is not None and t.producer is None and id(t) not in inputs and not t.is_constant
                    and not t.is_variable and t.num_elements > 0):
                raise ModelError(path, f"{where(i, op)} reads tensor {t.index} {t.name!r}, which nothing "
                                       "writes (not an input, a constant or another op's output)")


def _validate_options(op: Op, where: Callable[[], str], path: str) -> None:
    """Refuse builtin options of another op's table (the runtime's builtin_options_as_<Table>()
    would read none, and every reader of `op.options` expects the op's own fields) and a strided
    op without its options (its output would have no elements)."""
    expected = options.EXPECTED.get(op.builtin)
    if expected is None:
        return
    tag = op.fb.builtinOptionsType
    if tag not in (fb.BuiltinOptions.NONE, expected):
        raise ModelError(path, f"{where()} has builtin options of type {options.table_name(tag)}, "
                               f"but the op reads {options.table_name(expected)}")
    if op.options is None and op.builtin in _STRIDED:
        raise ModelError(path, f"{where()} has no {options.table_name(expected)} (its strides would be 0 "
                               "and its output would have no elements)")


def _validate_tensor(t, gi: int, ti: int, n_buffers: int, path: str) -> None:
    shape = t.shape if t.shape is not None else ()
    sig = t.shapeSignature if t.shapeSignature is not None else ()
    if 0 <= t.buffer < max(n_buffers, 1) and len(shape) <= 16 and t.type in dtypes.NAMES \
            and (not len(shape) or min(shape) >= 0) and (not len(sig) or min(sig) >= -1):
        return
    where = f"subgraph {gi}: tensor {ti}"
    if not 0 <= t.buffer < max(n_buffers, 1):
        raise ModelError(path, f"{where} refers to buffer {t.buffer}, but the model has {n_buffers} buffers")
    for d in shape:
        if d < 0:
            raise ModelError(path, f"{where} has a negative dimension ({d}) in its shape")
    if len(shape) > 16:
        raise ModelError(path, f"{where} has rank {len(shape)}")
    for d in sig:
        if d < -1:
            raise ModelError(path, f"{where} has an invalid dimension ({d}) in its shape signature")
    raise ModelError(path, f"{where} has an unknown tensor type ({t.type})")


def _link_quantization(model: Model, path: str) -> None:
    """Link every blockwise-quantized tensor to the tensors its details name (scales; zero points
    when not -1)."""
    for gi, g in enumerate(model.graphs):
        for t in g.tensors:
            if not t.is_blockwise_quantized:
                continue
            details = t.fb.quantization.details
            for field in ("scales", "zeroPoints"):
                index = getattr(details, field)
                if index is None or index < 0:
                    continue
                if index >= len(g.tensors):
                    raise ModelError(path, f"subgraph {gi}: tensor {t.name!r} names {field} tensor {index}, "
                                           f"but the subgraph has {len(g.tensors)} tensors")
                model.quantization_links.append((t, details, field, g.tensors[index]))


def _link_signatures(model: Model, path: str) -> None:
    for si, sd in enumerate(model.fb.signatureDefs or []):
        if not 0 <= sd.subgraphIndex < len(model.graphs):
            raise ModelError(path, f"signature {si} refers to subgraph {sd.subgraphIndex}, "
                                   f"but the model has {len(model.graphs)}")
        g = model.graphs[sd.subgraphIndex]
        for tm in [*(sd.inputs or []), *(sd.outputs or [])]:
            if not 0 <= tm.tensorIndex < len(g.tensors):
                raise ModelError(path, f"signature {si} refers to tensor {tm.tensorIndex}, "
                                       f"but subgraph {sd.subgraphIndex} has {len(g.tensors)} tensors")
            model.signature_links.append((tm, g.tensors[tm.tensorIndex]))
