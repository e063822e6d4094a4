"""The IR loads and saves losslessly, and keeps producer/consumer links consistent."""

import numpy as np
import pytest

import modelgen
from gpucompat import ir
from gpucompat.errors import GpucompatError, GraphError
from roundtrip import run, structure


@pytest.mark.parametrize("name", sorted(modelgen.BUILDERS))
def test_untouched_load_save_keeps_everything(models, name):
    """The round-trip property, on every model the suite generates."""
    original = models.bytes(name)
    saved = ir.to_bytes(ir.from_bytes(original))
    assert structure(ir.from_bytes(saved)) == structure(ir.from_bytes(original))
    try:
        expected = run(original)
    except GpucompatError:  # e.g. a custom op the reference interpreter lacks
        with pytest.raises(GpucompatError):
            run(saved)
        return
    for a, b in zip(expected, run(saved), strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def test_links_follow_the_ops(models):
    m = ir.from_bytes(models.bytes("conv_relu"))
    g = m.graphs[0]
    conv, mean, fc = g.ops
    assert conv.outputs[0].consumers == [mean]
    assert mean.outputs[0].producer is mean
    assert fc.outputs[0] in g.outputs
    assert g.inputs[0].producer is None and g.inputs[0].consumers == [conv]


def test_constants_are_read_with_their_shape(models):
    m = ir.from_bytes(models.bytes("conv_relu"))
    weights = m.graphs[0].ops[0].inputs[1]
    assert weights.is_constant and weights.data().shape == weights.shape == (8, 3, 3, 3)
    assert not m.graphs[0].inputs[0].is_constant


def test_misordered_plan_is_reported_and_toposort_repairs_it(models):
    m = ir.from_bytes(models.bytes("conv_relu"))
    g = m.graphs[0]
    g.ops.reverse()
    assert "reads tensor" in g.topological_problem()
    with pytest.raises(GraphError):
        g.check()
    g.toposort()
    assert g.topological_problem() is None
    assert [op.name for op in g.ops] == ["CONV_2D", "MEAN", "FULLY_CONNECTED"]


def test_cycle_is_named_not_looped_on(models):
    m = ir.from_bytes(models.bytes("conv_relu"))
    g = m.graphs[0]
    conv, mean, _ = g.ops
    conv.set_input(0, mean.outputs[0])  # conv now reads what its consumer produces
    with pytest.raises(GraphError, match=r"cycle through op#\d CONV_2D -> op#\d MEAN -> op#\d CONV_2D"):
        g.toposort()


def test_edits_keep_the_links_current(models):
    """Every editing method leaves producer and readers right without a relink, and an edit made
    by hand on the lists is what stale_links names."""
    from gpucompat.ir import build

    g = ir.from_bytes(models.bytes("conv_relu")).graphs[0]
    conv, mean, fc = g.ops
    x, features = g.inputs[0], conv.outputs[0]
    mean.set_input(0, x)
    assert features.consumers == [] and mean in x.consumers and g.stale_links() is None
    relu = build.operator(g, "RELU", [x], [features])
    g.replace_op(conv, [relu])  # RELU now writes what CONV_2D wrote
    assert features.producer is relu and conv not in x.consumers and g.stale_links() is None
    mean.set_input(0, features)
    g.remove_op(fc)
    assert fc.outputs[0].producer is None and fc not in mean.outputs[0].consumers and g.stale_links() is None
    g.insert_op(2, fc)
    assert fc.outputs[0].producer is fc and g.stale_links() is None
    mean.inputs[0] = x  # by hand: the readers of `features` and `x` are now wrong
    assert "names the wrong readers" in g.stale_links()


def test_saved_model_after_edit_runs(models):
    """Removing an op and rewiring through the IR yields a model the interpreter runs."""
    m = ir.from_bytes(models.bytes("gather_nd_island"))
    g = m.graphs[0]
    tanh = g.ops[-1]
    g.replace_uses(tanh.outputs[0], tanh.inputs[0])
    g.cleanup()
    g.check()
    out = run(ir.to_bytes(m))
    assert [op.name for op in g.ops] == ["CONV_2D", "GATHER_ND", "MUL", "ADD"]
    assert out[0].shape == (2, 4, 4)


def test_networkx_view_follows_data_flow(models):
    from gpucompat.ir.networkx_view import to_networkx

    g = ir.from_bytes(models.bytes("gather_nd_island")).graphs[0]
    view = to_networkx(g)
    assert sorted(view.edges) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert view.edges[0, 1]["tensors"] == [g.ops[1].inputs[0]]


@pytest.mark.parametrize("name", sorted(modelgen.BUILDERS))
def test_fast_unpack_equals_the_stock_reader(models, name):
    """The reader's own table reads (buffers as views of the file) unpack exactly what the
    schema's object API does, on every model the suite generates."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as fb

    from gpucompat.ir.unpack import unpack_model

    raw = models.bytes(name)

    def packed(record):
        b = flatbuffers.Builder(1024)
        b.Finish(record.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    stock = fb.ModelT.InitFromPackedBuf(bytearray(raw), 0)
    assert packed(unpack_model(raw, int.from_bytes(raw[:4], "little"))) == packed(stock)


def test_alike_options_tables_are_read_as_records_of_their_own():
    """The reader reads an options table like one already read (same kind and bytes) only once:
    each op still gets a record of its own (an edit of one op's options leaves the others'),
    and a table that differs in one field (a fused RELU) is read as it is."""
    from ai_edge_litert import schema_py_generated as fb

    from gpucompat.ir.build import Sketch

    s = Sketch()
    x = s.input("x", (1, 8))
    c = s.const("c", np.ones(8, np.float32))
    for i in range(40):  # past the reader's threshold for reading a layout a field at a time
        x = s.op("ADD", [x, c], (1, 8), options=fb.AddOptionsT())
        if i == 30:
            relu = fb.AddOptionsT()
            relu.fusedActivationFunction = 1
            x = s.op("ADD", [x, c], (1, 8), options=relu)
    s.output(x)
    ops = ir.from_bytes(s.to_bytes()).graphs[0].ops
    acts = [op.options.fusedActivationFunction for op in ops]
    assert acts == [0] * 31 + [1] + [0] * 9
    assert len({id(op.options) for op in ops}) == len(ops)
    ops[0].options.fusedActivationFunction = 3
    assert [op.options.fusedActivationFunction for op in ops[1:]] == acts[1:]
    assert vars(ops[1].options) == vars(fb.AddOptionsT())
