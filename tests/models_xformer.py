"""Transformer-graph pieces the LiteRT GPU accelerator refuses, as the converter writes them."""

from modelgen import builder, const, tf


@builder("xformer_constant_lhs_matmul")
def xformer_constant_lhs_matmul() -> bytes:
    """A baked [1, 32, 16] matrix times runtime values [1, 16, 64]: BATCH_MATMUL, constant left."""
    from modelgen import convert_fn

    t = tf()
    a = const([1, 32, 16], seed=6)
    return convert_fn(lambda x: t.matmul(a, x), [([1, 16, 64], t.float32)])


@builder("xformer_weight_only_dense")
def xformer_weight_only_dense() -> bytes:
    """A 576 -> 576 dense layer with fake-quantized weights, converted in strict QDQ mode: the
    weights are stored as 8-bit integers (per-tensor scale) and read through DEQUANTIZE into
    FULLY_CONNECTED."""
    t = tf()
    w = const([576, 576], seed=5, scale=0.05)

    class Module(t.Module):
        @t.function(input_signature=[t.TensorSpec([1, 576], t.float32)])
        def __call__(self, x):
            return t.matmul(x, t.quantization.fake_quant_with_min_max_vars(w, -0.2, 0.2, narrow_range=True))

    module = Module()
    conv = t.lite.TFLiteConverter.from_concrete_functions([module.__call__.get_concrete_function()], module)
    conv._experimental_strict_qdq = True
    conv._experimental_qdq_conversion_mode = "DYNAMIC"
    return conv.convert()


@builder("xformer_rank5_qkv")
def xformer_rank5_qkv() -> bytes:
    """Self-attention with a fused query/key/value projection split as exporters of PyTorch
    models do: RESHAPE to [1, 16, 3, 4, 8], TRANSPOSE [2, 0, 3, 1, 4], UNPACK (rank-5 tensors)."""
    from modelgen import convert_fn

    t = tf()
    w = const([32, 96], seed=7, scale=0.2)

    def f(x):
        qkv = t.reshape(t.matmul(x, w), [1, 16, 3, 4, 8])
        q, k, v = t.unstack(t.transpose(qkv, [2, 0, 3, 1, 4]), axis=0)
        a = t.nn.softmax(t.matmul(q, k, transpose_b=True) / 8 ** 0.5)
        return t.reshape(t.transpose(t.matmul(a, v), [0, 2, 1, 3]), [1, 16, 32])

    return convert_fn(f, [([1, 16, 32], t.float32)])


@builder("xformer_constant_lhs_matmul_adjoint")
def xformer_constant_lhs_matmul_adjoint() -> bytes:
    """The same product with both operands stored transposed: A [1, 16, 32] read as its transpose
    and runtime values [1, 64, 16] read as theirs (adj_x, adj_y where the converter keeps them)."""
    from modelgen import convert_fn

    t = tf()
    a = const([1, 16, 32], seed=8)
    return convert_fn(lambda x: t.matmul(a, x, transpose_a=True, transpose_b=True), [([1, 64, 16], t.float32)])


@builder("xformer_gqa_repeat")
def xformer_gqa_repeat() -> bytes:
    """Grouped-query attention as litert-torch writes it: each of 2 key/value heads repeated for 2
    query heads through rank 5 (RESHAPE [1, 8, 2, 1, 16], BROADCAST_TO [1, 8, 2, 2, 16], RESHAPE
    [1, 8, 4, 16]), then scores against 4 query heads."""
    from modelgen import convert_fn

    t = tf()
    w = const([64, 32], seed=9, scale=0.2)

    def f(x, q):
        kv = t.reshape(t.matmul(x, w), [1, 8, 2, 1, 16])
        k = t.reshape(t.broadcast_to(kv, [1, 8, 2, 2, 16]), [1, 8, 4, 16])
        return t.nn.softmax(t.matmul(t.transpose(q, [0, 2, 1, 3]), t.transpose(k, [0, 2, 3, 1])))

    return convert_fn(f, [([1, 8, 64], t.float32), ([1, 8, 4, 16], t.float32)])
