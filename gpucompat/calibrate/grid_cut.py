"""Forms cut from real models: every delegated op of a converter's model whose form the table has
never measured, written alone as the grid writes its forms, so that the form a real model holds is
measured as that model holds it.

An op is cut with its own options, version and operand shapes. An operand the model computes at
run time becomes an input of the form (drawn as the grid draws it: away from 0 where the op
divides or takes a root or a logarithm; bool at random); a constant keeps its values and where
the file keeps it: a float32 constant, a float16 or int8 constant behind a DEQUANTIZE, an int8
constant a hybrid op reads itself, or int32 / bool data as stored. A full-int8 op (an int8
runtime operand) keeps every scale and zero point: its runtime operands are drawn over all of
int8, its constants are read as stored; so one that divides or takes a root or a logarithm is
not cut (its input would reach 0 and below, where the model's never does). Nor is an op one of
whose runtime operands is int32 (ids, shapes: a draw would not stand for the model's values), a
custom op the CPU has no kernel for (MediaPipe's Convolution2DTransposeBias is cut: the grid's CPU
reference runs its builtin twin, as verify's does), or one whose output is not float, bool or int8. Its
form name says where it came from: "cut_<model>_<subgraph>_<op>".
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable

import numpy as np

from gpucompat import ir
from gpucompat.calibrate.grid import AWAY, Form
from gpucompat.calibrate.grid_ops import Quantized, Runtime, Stored, form
from gpucompat.ir import dtypes
from gpucompat.rewrites.fold_constants import dequantize
from gpucompat.rules.support import calibration
from gpucompat.rules.support import forms as keys
from gpucompat.rules.support.calibration import HERE as CALIBRATION_DIR
from gpucompat.verification.reference_model import TRANSPOSE_BIAS

# Every cut form the grid measures: one model, each form's op writing one graph output named after
# the form (the grid's batch model of them), kept beside the table it stands for (per table: the
# forms that table lacked when they were cut; the grid's groups "cut" and "cut-gl").
STORE = os.path.join(CALIBRATION_DIR, "cut_forms.tflite")
STORES = {calibration.ACCELERATOR: STORE, calibration.GL: os.path.join(CALIBRATION_DIR, "cut_forms_gl.tflite")}
# the runtime types a form can draw, and how
DRAWN = {dtypes.FLOAT32: "normal", dtypes.BOOL: "bool", dtypes.INT8: "int8", dtypes.INT32: "int"}
OUTPUTS = (dtypes.FLOAT32, dtypes.BOOL, dtypes.INT8, dtypes.INT32)
# runtime int32 operands that index another (op, input): drawn within what they index
INDEXING = {("GATHER", 1), ("GATHER_ND", 1), ("EMBEDDING_LOOKUP", 0), ("DYNAMIC_UPDATE_SLICE", 2), ("ONE_HOT", 0)}
# runtime int32 operands that decide shapes: a drawn value would make another model
SHAPING = {("RESHAPE", 1), ("BROADCAST_TO", 1), ("FILL", 0), ("TILE", 1), ("PAD", 1), ("PADV2", 1), ("SLICE", 1),
           ("SLICE", 2), ("STRIDED_SLICE", 1), ("STRIDED_SLICE", 2), ("STRIDED_SLICE", 3), ("RANGE", 0), ("RANGE", 1),
           ("RANGE", 2), ("ONE_HOT", 1), ("TRANSPOSE", 1), ("SUM", 1), ("MEAN", 1), ("REDUCE_MAX", 1)}


def _quantization(t: ir.Tensor) -> tuple | None:
    """A tensor's (scale, zero point): one of each, or a scale per index of its quantized axis."""
    q = t.quantization
    if q is None or q.scale is None or not len(q.scale):
        return None
    zero = int(q.zeroPoint[0]) if q.zeroPoint is not None and len(q.zeroPoint) else 0
    return (float(q.scale[0]), zero) if len(q.scale) == 1 else (np.asarray(q.scale, np.float32), zero)


def operand(t: ir.Tensor | None, draw: str, full_int8: bool = False):
    """The form's operand standing for `t`: None (an absent optional input), a Runtime one, a
    Stored constant with its provenance, or the stored data itself (int32, bool; a `full_int8`
    op's int8 and int32 constants with their quantization); raises ValueError when the form
    cannot stand for it."""
    if t is None:
        return None
    if not keys.is_constant(t):
        if t.dtype not in DRAWN:
            raise ValueError(f"a runtime {t.dtype_name} operand")
        if t.dtype == dtypes.INT8:
            return Runtime(tuple(t.shape), "int8", _quantization(t))
        return Runtime(tuple(t.shape), draw if t.dtype == dtypes.FLOAT32 or draw.startswith(("ids", "at"))
                       else DRAWN[t.dtype])
    data = keys.stored(t)
    value = data.data()
    if value is None:
        raise ValueError("a constant without data")
    if t is data and (t.dtype != dtypes.INT8 or full_int8):
        q = _quantization(t)
        return np.asarray(value) if q is None else Quantized(np.asarray(value), q,
                                                              int(t.quantization.quantizedDimension))
    q = data.quantization
    if data.dtype == dtypes.FLOAT16:
        return Stored(dequantize(data), "f16dq")
    if data.dtype != dtypes.INT8 or q is None or q.scale is None:
        raise ValueError(f"a {data.dtype_name} constant behind a DEQUANTIZE")
    axis = int(q.quantizedDimension) if len(q.scale) > 1 else None
    return Stored(dequantize(data), "i8" if t is data else "i8dq", axis)


def cut(op: ir.Op, name: str) -> Form | None:
    """The form of `op` alone, named `name`; None when it cannot be cut (see the module's text)."""
    if (op.code.custom is not None and op.code.custom != TRANSPOSE_BIAS) or not op.outputs \
            or op.outputs[0].dtype not in OUTPUTS:
        return None
    draw = "away" if op.name in AWAY else "normal"
    full_int8 = any(t is not None and not keys.is_constant(t) and t.dtype == dtypes.INT8 for t in op.inputs)
    if full_int8 and op.name in AWAY:  # drawn over all of int8, its input would reach 0 and below
        return None
    if any((op.name, j) in SHAPING and t is not None and not keys.is_constant(t) for j, t in enumerate(op.inputs)):
        return None
    try:
        operands = [operand(t, _index_draw(op, j) or draw, full_int8) for j, t in enumerate(op.inputs)]
    except ValueError:
        return None
    if not any(isinstance(o, Runtime) for o in operands):
        return None
    out = op.outputs[0]
    outs = [(tuple(t.shape), t.dtype) for t in op.outputs]
    options = bytes(op.custom_options) if op.code.custom else copy.deepcopy(op.fb.builtinOptions)
    if len(outs) > 1:
        return form(name, op.name, operands, outs, options=options, version=op.code.version, pick=0)
    return form(name, op.name, operands, tuple(out.shape), out.dtype, options, op.code.version, _quantization(out))


def _index_draw(op: ir.Op, j: int) -> str | None:
    """How a runtime int32 input that indexes another is drawn: ids below the axis it picks from
    (the smallest axis an index tuple spans), a start of 0; None for any other input."""
    if (op.name, j) not in INDEXING:
        return None
    if op.name == "DYNAMIC_UPDATE_SLICE":
        return "at0"
    if op.name == "ONE_HOT":
        depth = op.input(1).data() if op.input(1) is not None else None
        return f"ids{int(np.ravel(depth)[0])}" if depth is not None else None
    data = op.input(1) if op.name == "EMBEDDING_LOOKUP" else op.input(0)
    if op.name == "GATHER":
        axis = (op.options.axis if op.options is not None else 0) % data.rank
        return f"ids{data.shape[axis]}"
    if op.name == "GATHER_ND":
        return f"ids{min(data.shape[:op.input(1).shape[-1]])}"
    return f"ids{data.shape[0]}"


def wanted(model: ir.Model, gpu: dict[int, list[str]], lacking: Callable[[str], bool],
           keyed: Callable[[ir.Op], str | None] = keys.form_of) -> list[tuple[int, ir.Op]]:
    """The ops of `model` placed on the GPU (`gpu`: placements per subgraph) whose form keys
    (`keyed`: how the table keys them) are `lacking` in the table, one per key: (subgraph, op)."""
    seen, found = set(), []
    for index, graph in enumerate(model.graphs):
        for op, place in zip(graph.ops, gpu.get(index, [])):
            if place != "gpu" or not keys.judged(op):
                continue
            key = keyed(op)
            if key is None or key in seen or not lacking(key):
                continue
            seen.add(key)
            found.append((index, op))
    return found


def unmeasured(table: str = calibration.ACCELERATOR) -> Callable[[str], bool]:
    """Whether the shipped table `table` neither measured a key at fp32 nor saw it fail to build."""
    measured = calibration.Table(calibration.load(table))
    return lambda key: measured.status(key, "fp32") == "unmeasured" and not measured.build_failure(key)


def key_of(table: str) -> Callable[[ir.Op], str | None]:
    """How `table` keys an op (the GL delegate's table: with its batch)."""
    return keys.form_with_batch if table == calibration.GL else keys.form_of


def taken(model: ir.Model, table: str) -> dict[int, list[str]]:
    """"gpu" per op the table's delegate takes, per subgraph: where litert-mldrift places it for
    the accelerator; for the GL delegate, every op it takes at partitioning, including those its
    build may then fail on (the form is cut to measure exactly that)."""
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.judging import judge_graph
    from gpucompat.rules.support.profile import Options
    from gpucompat.verification.placements import placements_by_subgraph

    if table == calibration.ACCELERATOR:
        return placements_by_subgraph(model, "litert-mldrift")
    profile = registry.get("gl-delegate")
    return {i: ["gpu" if v.ok or v.layer == "parse" else "cpu"
                for v in judge_graph(g, profile, Options(backend="gl")).verdicts] for i, g in enumerate(model.graphs)}


def forms_from(paths: list[str], lacking: Callable[[str], bool], table: str = calibration.ACCELERATOR) -> list[Form]:
    """The forms cut from every model in `paths` whose keys are `lacking`, one per key."""
    found, keyed = [], set()
    for path in paths:
        model = ir.load(path)
        stem = re.sub(r"\W+", "_", os.path.splitext(os.path.basename(path))[0])
        for index, op in wanted(model, taken(model, table), lacking, key_of(table)):
            key = key_of(table)(op)
            made = None if key in keyed else cut(op, f"cut_{stem}_{index}_{op.index}")
            if made is not None:
                keyed.add(key)
                found.append(made)
    return found


def written(forms: list[Form]) -> ir.Model:
    """The grid's model of `forms` (one graph output per form, named after it), read back."""
    from gpucompat.calibrate.grid import _model

    model = ir.from_bytes(_model(forms))
    for f, t in zip(forms, model.graphs[0].outputs):
        t.fb.name = f.name
    return model


def stored(table: str = calibration.ACCELERATOR) -> list[Form]:
    """The cut forms the grid keeps for `table` (STORES), cut again from that model: the grid's
    group "cut" ("cut-gl" for the GL delegate's)."""
    store = STORES[table]
    if not os.path.exists(store):
        return []
    return [cut(t.producer, t.name) for t in ir.load(store).graphs[0].outputs]


def add(paths: list[str], lacking: Callable[[str], bool], table: str = calibration.ACCELERATOR) -> list[Form]:
    """Cut the forms of `paths` whose keys are `lacking` and `table`'s store does not hold yet,
    write them into that store beside the others (atomically), and return them."""
    kept, store = stored(table), STORES[table]
    held = {key_of(table)(t.producer) for t in written(kept).graphs[0].outputs} if kept else set()
    new = forms_from(paths, lambda key: key not in held and lacking(key), table)
    if new:
        part = store + ".part"
        with open(part, "wb") as fh:
            fh.write(ir.to_bytes(written(kept + new)))
        os.replace(part, store)
    return new
