"""Models for reading and writing at scale: the converter's buffer-offset layout (what it writes
past 2 GB: constants after the flatbuffer, addressed by Buffer.offset/size), built small by asking
the converter for that layout, as `_experimental_use_buffer_offset` does."""

from modelgen import builder, const, tf


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
