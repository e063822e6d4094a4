"""Forms cut from real models (gpucompat/calibrate/grid_cut.py, `tools/record_grid.py --cut`): each
delegated op a model holds in a form the table never measured is written alone, with the same form
key as in the model (so its measurement speaks for that op), its constants where the file keeps
them, and the batch runs on the CPU interpreter as the grid's reference. Models written with
tests/irbuild.py; no device needed."""

import struct

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.calibrate import grid, grid_cut
from gpucompat.rules.support.forms import form_of
from gpucompat.verification.interpreter import reference_interpreter, run_reference
from gpucompat.verification.reference_model import with_builtin_twins
from irbuild import IRModel


@pytest.fixture(scope="module")
def model() -> ir.Model:
    """SELECT_V2 with an fp16 scalar behind a DEQUANTIZE (TF's fp16 weights), a hybrid
    FULLY_CONNECTED with per-channel int8 weights and no bias, a full-int8 ADD of a constant and a
    full-int8 LOG, and a GATHER of runtime int32 ids."""
    rng = np.random.default_rng(0)
    m = IRModel()
    x = m.input("x", [1, 4, 8])
    ids = m.input("ids", [3], "INT32")
    fill = m.op("DEQUANTIZE", [m.const("fill16", np.float16(-3.0).reshape(()))], [], version=3)
    mask = m.const("mask", rng.integers(0, 2, [1, 4, 8]).astype(bool))
    selected = m.op("SELECT_V2", [mask, x, fill], [1, 4, 8])
    flat = m.op("RESHAPE", [x, m.const("shape", np.asarray([4, 8], np.int32))], [4, 8])
    w = m.tensor("w8", [5, 8], "INT8", data=rng.integers(-127, 128, [5, 8]).astype(np.int8),
                 quantization=([0.01, 0.02, 0.03, 0.04, 0.05], [0] * 5, 0))
    dense = m.op("FULLY_CONNECTED", [flat, w, -1], [4, 5])
    q = m.op("QUANTIZE", [x], [1, 4, 8], "INT8", quantization=(0.05, 3))
    added = m.op("ADD", [q, m.tensor("c8", [8], "INT8", data=rng.integers(-100, 100, [8]).astype(np.int8),
                                       quantization=(0.04, -1))], [1, 4, 8], "INT8", quantization=(0.1, 2))
    logged = m.op("LOG", [q], [1, 4, 8], "INT8", quantization=(0.1, 0))
    rows = m.op("GATHER", [m.const("table", rng.standard_normal([10, 8]).astype(np.float32)), ids], [3, 8])
    m.output(selected, dense, m.op("DEQUANTIZE", [added], [1, 4, 8]), m.op("DEQUANTIZE", [logged], [1, 4, 8]), rows)
    return ir.from_bytes(m.bytes())


def cut_all(model: ir.Model) -> dict[str, grid.Form | None]:
    """Every op of the model cut, by op type."""
    return {op.name: grid_cut.cut(op, f"cut_{op.index}") for op in model.graphs[0].ops if op.name != "DEQUANTIZE"}


def test_ops_a_form_can_stand_for_are_cut_with_their_own_key(model):
    cut = cut_all(model)
    assert sorted(n for n, f in cut.items() if f is not None) == ["ADD", "FULLY_CONNECTED", "GATHER", "QUANTIZE",
                                                                   "RESHAPE", "SELECT_V2"]
    forms = [cut[op.name] for op in model.graphs[0].ops if cut.get(op.name) is not None]
    written = ir.from_bytes(grid._model(forms)).graphs[0]
    source = {op.name: form_of(op) for op in model.graphs[0].ops}
    assert {out.producer.name: form_of(out.producer) for out in written.outputs} == {
        op: source[op] for op in ("ADD", "FULLY_CONNECTED", "GATHER", "QUANTIZE", "RESHAPE", "SELECT_V2")}
    assert "fp16 constant" in source["SELECT_V2"] and "int8" in source["ADD"]


def test_runtime_ids_are_drawn_within_the_table_and_an_int8_logarithm_is_not_drawn(model):
    """GATHER's runtime ids are drawn below the rows they pick from (any int32 would read past the
    table); a full-int8 LOG's input drawn over all of int8 would reach 0 and below, so it stays
    unmeasured."""
    cut = cut_all(model)
    assert cut["GATHER"].draw == "normal,ids10" or cut["GATHER"].draw.endswith("ids10")
    ids = grid.seeded_feeds(ir.from_bytes(grid._model([cut["GATHER"]])).graphs[0], [cut["GATHER"]])[-1]
    assert ids.dtype == np.int32 and 0 <= ids.min() and ids.max() < 10
    assert cut["LOG"] is None


def test_the_cut_batch_runs_on_the_cpu_as_the_grids_reference(model):
    forms = [f for f in cut_all(model).values() if f is not None]
    data = grid._model(forms)
    graph = ir.from_bytes(data).graphs[0]
    reference = grid._model(forms, exact=True)
    got = run_reference(reference_interpreter(reference, "the cut batch"), grid.seeded_feeds(graph, forms))
    assert [g.shape for g in got] == [tuple(t.shape) for t in graph.outputs]
    assert all(np.isfinite(g.astype(np.float64)).all() for g in got)


def test_wanted_takes_one_delegated_op_per_lacking_key(model):
    """Ops on the CPU, ops whose key the table holds, and a second op of a key already taken are
    left out; a DEQUANTIZE of a constant is folded, never judged."""
    graph = model.graphs[0]
    where = {0: ["gpu"] * len(graph.ops)}
    where[0][next(op.index for op in graph.ops if op.name == "RESHAPE")] = "cpu"
    taken = grid_cut.wanted(model, where, lambda key: not key.startswith("ADD"))
    names = [op.name for _, op in taken]
    assert "RESHAPE" not in names and "ADD" not in names and {"SELECT_V2", "FULLY_CONNECTED"} <= set(names)
    assert not any(op.name == "DEQUANTIZE" and op.inputs[0].is_constant for _, op in taken)
    assert len({form_of(op) for _, op in taken}) == len(taken)


def test_mediapipes_transposed_convolution_is_cut_and_its_reference_is_the_builtin_twin():
    """Convolution2DTransposeBias (MediaPipe's segmentation decoders) has no CPU kernel: its cut
    form keeps the custom op and its options, and the grid's CPU reference runs it as the builtin
    TRANSPOSE_CONV, which the interpreter computes."""
    rng = np.random.default_rng(1)
    m = IRModel()
    x = m.input("x", [1, 4, 4, 8])
    w = m.op("DEQUANTIZE", [m.const("w16", rng.standard_normal([4, 2, 2, 8]).astype(np.float16))], [4, 2, 2, 8],
             version=3)
    b = m.op("DEQUANTIZE", [m.const("b16", rng.standard_normal([4]).astype(np.float16))], [4], version=3)
    m.output(m.custom("Convolution2DTransposeBias", [x, w, b], [1, 8, 8, 4], options=struct.pack("<3i", 1, 2, 2)))
    op = ir.from_bytes(m.bytes()).graphs[0].ops[-1]
    form = grid_cut.cut(op, "cut_transpose_bias")
    graph = grid_cut.written([form]).graphs[0]
    made = graph.outputs[0].producer
    assert made.code.custom == "Convolution2DTransposeBias" and bytes(made.custom_options) == bytes(op.custom_options)
    assert form_of(made) == form_of(op)
    model = ir.from_bytes(grid._model([form]))
    assert with_builtin_twins(model) == 1
    got = run_reference(reference_interpreter(ir.to_bytes(model), "the twin"), grid.seeded_feeds(graph, [form]))
    assert got[0].shape == (1, 8, 8, 4) and np.isfinite(got[0]).all() and np.abs(got[0]).max() > 0


def test_a_nan_or_infinite_fill_both_sides_compute_is_equal():
    """litert-torch's decode masks fill with NaN (a constant of the model) or -inf: the same fill on
    both sides is right, a NaN on one side only is wrong."""
    mask_fill = np.array([0.5, np.nan, -np.inf, 2.0])
    assert not grid.judge(mask_fill.copy(), mask_fill, "fp32")["wrong"]
    assert grid.judge(np.array([0.5, 1.0, -np.inf, 2.0]), mask_fill, "fp32")["wrong"]
    assert grid.judge(np.array([0.5, np.nan, -np.inf, 2.5]), mask_fill, "fp32")["wrong"]
