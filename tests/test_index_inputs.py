"""verify's and fix's seeded inputs for integer inputs the graph uses as indices
(gpucompat/verification/inputs.py index_bound): token ids stay below the embedding table's rows and
positions below a gathered table's length, so the reference interpreter never reads out of range
(a decoder's `gather index out of bounds`); an integer input nothing bounds keeps [0, 100).
Models written with tests/irbuild.py."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.verification import inputs
from irbuild import IRModel, options


def decoder_inputs(tmp_path) -> str:
    """Token ids [1, 8] through a RESHAPE into EMBEDDING_LOOKUP of a 12-row table, positions [8]
    wrapped as litert-torch wraps a negative one (SELECT_V2) into GATHER of a 20-row positional
    table, and a free integer scale added to the sum."""
    rng = np.random.default_rng(0)
    m = IRModel(signature="decode")
    ids = m.input("tokens", [1, 8], "INT32")
    pos = m.input("input_pos", [8], "INT32")
    steps = m.input("steps", [1], "INT32")
    flat = m.op("RESHAPE", [ids, m.const("flat", np.asarray([8], np.int32))], [8], "INT32",
                options=options("Reshape", newShape=[8]))
    emb = m.op("EMBEDDING_LOOKUP", [flat, m.const("table", rng.standard_normal([12, 4]).astype(np.float32))], [8, 4])
    negative = m.op("LESS", [pos, m.const("zero", np.zeros([8], np.int32))], [8], "BOOL")
    wrapped = m.op("ADD", [pos, m.const("rows", np.full([8], 20, np.int32))], [8], "INT32", options=options("Add"))
    index = m.op("SELECT_V2", [negative, wrapped, pos], [8], "INT32")  # pos < 0 ? pos + 20 : pos, as litert-torch
    where = m.op("GATHER", [m.const("positions", rng.standard_normal([20, 4]).astype(np.float32)), index], [8, 4],
                 options=options("Gather", axis=0))
    total = m.op("ADD", [emb, where], [8, 4], options=options("Add"))
    scale = m.op("CAST", [steps], [1], "FLOAT32")
    m.output(m.op("MUL", [total, scale], [8, 4], options=options("Mul")))
    path = tmp_path / "decoder_inputs.tflite"
    path.write_bytes(m.bytes())
    return str(path)


def test_index_inputs_are_drawn_below_what_they_index(tmp_path):
    graph = ir.load(decoder_inputs(tmp_path)).graphs[0]
    specs = inputs.specs(graph)
    assert [s.below for s in specs] == [12, 20, None]
    runs = inputs.seeded(specs, runs=20)
    assert all(r[0].max() < 12 and r[1].max() < 20 and r[0].min() >= 0 for r in runs)
    assert max(int(r[2].max()) for r in runs) >= 20, "a free integer keeps the wider range"


@pytest.mark.opencl
def test_verify_runs_a_model_whose_ids_index_a_small_table(tmp_path):
    """Drawn in [0, 100) the ids fell outside the 12-row table and the reference interpreter refused
    the run; drawn below it, verify compares every input set."""
    r = gpucompat("verify", decoder_inputs(tmp_path), "--runs", "3", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["passed"]


def test_the_runtimes_joined_messages_stay_apart():
    """TFLite's error reporter joins its messages with nothing between them."""
    from gpucompat.verification.interpreter import one_line

    joined = RuntimeError("gather_nd index out of boundsNode number 16 (GATHER_ND) failed to invoke.\n")
    assert one_line(joined) == "gather_nd index out of bounds. Node number 16 (GATHER_ND) failed to invoke."
    assert one_line(RuntimeError("Invalid begin.Node number 2 (SLICE) failed")) == \
        "Invalid begin. Node number 2 (SLICE) failed"


def kv_cache_write() -> ir.Model:
    """A prefill's KV-cache write as litert-torch exports it: the first of the positions [8]
    (SLICE, RESHAPE to a scalar) PACKed into the start indices [0, p, 0, 0] of a
    DYNAMIC_UPDATE_SLICE of an update [1, 8, 2, 4] into a cache [1, 64, 2, 4]."""
    m = IRModel()
    pos = m.input("input_pos", [8], "INT32")
    cache, update = m.input("cache", [1, 64, 2, 4]), m.input("update", [1, 8, 2, 4])
    first = m.op("SLICE", [pos, m.const("begin", np.zeros([1], np.int32)), m.const("size", np.ones([1], np.int32))],
                 [1], "INT32")
    scalar = m.op("RESHAPE", [first, m.const("scalar", np.zeros([0], np.int32))], [], "INT32")
    zero = m.const("zero", np.zeros([], np.int32))
    start = m.op("PACK", [zero, scalar, zero, zero], [4], "INT32", options=options("Pack", valuesCount=4, axis=0))
    m.output(m.op("DYNAMIC_UPDATE_SLICE", [cache, update, start], [1, 64, 2, 4]))
    return ir.from_bytes(m.bytes())


def test_positions_that_start_a_cache_write_are_a_run_that_fits():
    """Random positions make attention-mask rows that hide every key (a row the CPU softmaxes to
    zeros and a GPU to NaN): the positions are drawn consecutive, from a start that lets the
    8-row update fit in the 64-row cache."""
    spec = inputs.specs(kv_cache_write().graphs[0])[0]
    assert spec.run == 57
    for values in (s[0] for s in inputs.seeded([spec], 0, 20)):
        assert np.array_equal(np.diff(values), np.ones(7)) and 0 <= values[0] and values[-1] < 64
