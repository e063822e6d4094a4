"""Models for reading and writing at scale: the converter's buffer-offset layout (what it writes
past 2 GB: constants after the flatbuffer, addressed by Buffer.offset/size), built small by asking
the converter for that layout, as `_experimental_use_buffer_offset` does."""

from modelgen import builder, const, convert_fn, tf


def _convert_with_offsets(fn, specs) -> bytes:
    t = tf()

    class Module(t.Module):
        @t.function(input_signature=[t.TensorSpec(s, d) for s, d in specs])
        def __call__(self, *args):
            return fn(*args)

    module = Module()
    conv = t.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    conv._experimental_use_buffer_offset = True
    return conv.convert()


@builder("scale_offset_fc")
def scale_offset_fc() -> bytes:
    """FULLY_CONNECTED 64 -> 32 with bias, TANH; constants after the flatbuffer."""
    t = tf()
    w, b = const([64, 32], seed=11), const([32], seed=12)
    return _convert_with_offsets(lambda x: t.tanh(t.matmul(x, w) + b), [([1, 64], t.float32)])


@builder("scale_offset_stb")
def scale_offset_stb() -> bytes:
    """A dilated conv with a dynamic batch (the SPACE_TO_BATCH_ND chain `fix` folds), then a
    FULLY_CONNECTED; constants after the flatbuffer."""
    t = tf()
    w, fc = const([3, 3, 4, 8], seed=13), const([8, 8], seed=14)

    def fn(x):
        y = t.nn.relu(t.nn.atrous_conv2d(x, w, 2, "SAME"))
        return t.tensordot(y, fc, axes=1)

    return _convert_with_offsets(fn, [([None, 13, 13, 4], t.float32)])


# The 20,000-op model of the HTML report's scale tests.
LONG_OPS = 20_000
LONG_ROUND = LONG_OPS - 2  # the one rejected op (ROUND), next to last
LONG_HOSTILE = 12_345  # the op whose output tensor is named SCRIPT_NAME (read by op LONG_HOSTILE + 1)


@builder("scale_long_chain")
def scale_long_chain() -> bytes:
    """LONG_OPS ops: ADD, TANH × (LONG_OPS - 3), ROUND, TANH. The converter writes the four-op
    model (x + 0.5, tanh, round, tanh); gpucompat's IR repeats its first TANH, naming each new
    tensor `link_N` after the op N that writes it and one of them SCRIPT_NAME. Converting 20,000 ops
    takes the converter about 40 s; this takes a second."""
    from gpucompat import ir
    from gpucompat.ir import build, writer
    from models_report import SCRIPT_NAME

    t = tf()
    model = ir.from_bytes(convert_fn(lambda x: t.tanh(t.round(t.tanh(x + 0.5))), [([1, 8], t.float32)]))
    g = model.graphs[0]
    add, tanh, rnd, last = g.ops
    x = tanh.outputs[0]
    repeats = []
    for n in range(2, LONG_ROUND):
        y = build.tensor(g, SCRIPT_NAME if n == LONG_HOSTILE else f"link_{n}", x.shape, x.dtype)
        repeats.append(build.operator(g, "TANH", [x], [y]))
        x = y
    rnd.inputs = [x]
    g.ops = [add, tanh, *repeats, rnd, last]
    g.link()
    return writer.to_bytes(model)
