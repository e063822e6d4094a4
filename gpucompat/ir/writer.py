"""Write the IR back to .tflite bytes, and to disk atomically."""

from __future__ import annotations

import os
import tempfile

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as fb

from gpucompat.errors import GpucompatError
from gpucompat.ir.model import Model
from gpucompat.ir.nodes import OpCode
from gpucompat.ir.reader import FILE_IDENTIFIER, opcode_of

_PLACEHOLDER_FOR_GREATER_OP_CODES = 127


def to_bytes(model: Model) -> bytes:
    """Serialise the model. An untouched model keeps every record, index and table order."""
    rec = model.fb
    codes = rec.operatorCodes if rec.operatorCodes is not None else []
    code_index: dict[OpCode, int] = {}
    for i, c in enumerate(codes):
        code_index.setdefault(opcode_of(c), i)
    for g in model.graphs:
        pos = {id(t): i for i, t in enumerate(g.tensors)}
        for op in g.ops:
            if op.code not in code_index:
                codes.append(_opcode_record(op.code))
                code_index[op.code] = len(codes) - 1
            op.fb.opcodeIndex = code_index[op.code]
            op.fb.inputs = _int32([pos[id(t)] if t is not None else -1 for t in op.inputs])
            op.fb.outputs = _int32([pos[id(t)] for t in op.outputs])
            if op.intermediates or op.fb.intermediates is not None:
                op.fb.intermediates = _int32([pos[id(t)] for t in op.intermediates])
        g.fb.tensors = [t.fb for t in g.tensors]
        g.fb.operators = [op.fb for op in g.ops]
        g.fb.inputs = _int32([pos[id(t)] for t in g.inputs])
        g.fb.outputs = _int32([pos[id(t)] for t in g.outputs])
    for tm, t in model.signature_links:
        tm.tensorIndex = t.index
    rec.operatorCodes = codes
    rec.subgraphs = [g.fb for g in model.graphs]
    builder = flatbuffers.Builder(max(1024, model.size_bytes + 4096))
    builder.Finish(rec.Pack(builder), file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


def _int32(values: list[int]) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)


def _opcode_record(code: OpCode):
    r = fb.OperatorCodeT()
    r.builtinCode = code.builtin
    r.deprecatedBuiltinCode = min(code.builtin, _PLACEHOLDER_FOR_GREATER_OP_CODES)
    r.customCode = code.custom
    r.version = code.version
    return r


def write_atomic(data: bytes, path: str, *, protect: tuple[str, ...] = ()) -> None:
    """Write `data` to `path` through a temporary file in the same directory and a rename, so a
    failure (disk full, permission) leaves no partial file. Refuses to replace any path in
    `protect` (the command's inputs) unless the caller leaves it out on purpose."""
    target = os.path.abspath(path)
    for p in protect:
        if os.path.exists(p) and os.path.exists(target) and os.path.samefile(p, target):
            raise GpucompatError(f"{path}: refusing to overwrite the input model (pass --in-place to allow it)")
    directory = os.path.dirname(target) or "."
    if not os.path.isdir(directory):
        raise GpucompatError(f"{path}: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".gpucompat-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise GpucompatError(f"{path}: cannot write ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(target):
            os.chmod(tmp, os.stat(target).st_mode & 0o777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise GpucompatError(f"{path}: cannot write ({e.strerror or e}); nothing was written") from None


def save(model: Model, path: str, *, protect: tuple[str, ...] = ()) -> None:
    """Serialise and write the model atomically."""
    write_atomic(to_bytes(model), path, protect=protect)
