"""Transformer-era models for fp16 precision: what TensorFlow's converter writes for Keras
encoders (LayerNormalization, MultiHeadAttention, GELU, residual streams) and for LayerNorm by hand.

keras.layers.LayerNormalization over the last axis converts to MEAN -> SQUARED_DIFFERENCE(x, mean)
-> MEAN -> ADD(eps) -> RSQRT -> MUL(gamma), then x * inv + (beta - mean * inv): the variance of
rows with |x| ~ 1000 passes fp16's 65504. `scaled_input(path, scale)` makes the inputs that drive
the LayerNorm rows to |x| ~ scale (N(0, 1) x scale, first axis = samples, keyed by input name).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from modelgen import builder, const, convert_fn, tf

TOKENS, WIDTH, HEADS = 16, 32, 4


def _layer_norm(t, seed: int):
    """A LayerNormalization with trained-looking (non-trivial) gamma and beta."""
    layer = t.keras.layers.LayerNormalization(epsilon=1e-6)
    layer.build((None, TOKENS, WIDTH))
    layer.set_weights([1.0 + const([WIDTH], seed, 0.1), const([WIDTH], seed + 1, 0.1)])
    return layer


def _encoder(t, blocks: int, pre_norm: bool, seed: int):
    """`blocks` encoder blocks over [1, TOKENS, WIDTH]: pre-norm (ViT, with a final LayerNorm) or
    post-norm (BERT)."""
    layers = []
    for b in range(blocks):
        s = seed + 10 * b
        attention = t.keras.layers.MultiHeadAttention(HEADS, WIDTH // HEADS)
        up = t.keras.layers.Dense(2 * WIDTH, activation="gelu")
        down = t.keras.layers.Dense(WIDTH)
        layers.append((_layer_norm(t, s), attention, _layer_norm(t, s + 2), up, down))

    final = _layer_norm(t, seed + 100) if pre_norm else None

    def run(x):
        for norm1, attention, norm2, up, down in layers:
            if pre_norm:
                h = norm1(x)
                x = x + attention(h, h)
                x = x + down(up(norm2(x)))
            else:
                x = norm1(x + attention(x, x))
                x = norm2(x + down(up(x)))
        return final(x) if final is not None else x

    t.random.set_seed(seed)
    return run


@builder("fp16_layernorm")
def layernorm() -> bytes:
    """keras.layers.LayerNormalization over [1, 16, 32] alone, as the converter writes it."""
    t = tf()
    norm = _layer_norm(t, 1)
    return convert_fn(lambda x: norm(x), [([1, TOKENS, WIDTH], t.float32)])


@builder("fp16_layernorm_scaled")
def layernorm_scaled() -> bytes:
    """The same LayerNorm computed in a scaled domain: S = max(max|x| / 8, 1) per row, xs = x / S,
    variance of xs, eps / S / S (right at fp16 for any |x| fp16 can hold; S * S would pass 65504
    once |x| passes 2048)."""
    t = tf()
    gamma, beta = 1.0 + const([WIDTH], 1, 0.1), const([WIDTH], 2, 0.1)

    def f(x):
        s = t.maximum(t.reduce_max(t.abs(x), -1, keepdims=True) / 8.0, 1.0)
        xs = x / s
        mean = t.reduce_mean(xs, -1, keepdims=True)
        var = t.reduce_mean(t.math.squared_difference(xs, mean), -1, keepdims=True)
        return (xs - mean) * t.math.rsqrt(var + 1e-6 / s / s) * gamma + beta

    return convert_fn(f, [([1, TOKENS, WIDTH], t.float32)])


@builder("fp16_layernorm_torch_form")
def layernorm_torch_form() -> bytes:
    """torch.nn.LayerNorm over [2, 16, 32] in the form litert-torch 0.10.0 writes it (read off its
    output for nn.LayerNorm): the rows as [1, 32, 32], MEAN over axes [0, 2] dropping them ([32]),
    a RESHAPE to [1, 32, 1] for SQUARED_DIFFERENCE, MEAN over [0, 2], ADD eps, RSQRT ([32]), then
    x * r + (-mean * r) and gamma, beta. Built with TensorFlow's converter: the tests have no PyTorch."""
    t = tf()
    gamma, beta = 1.0 + const([WIDTH], 3, 0.1), const([WIDTH], 4, 0.1)
    rows = 2 * TOKENS

    def f(x):
        x = t.reshape(x, [1, rows, WIDTH])
        mean = t.reduce_mean(x, [0, 2])
        var = t.reduce_mean(t.math.squared_difference(x, t.reshape(mean, [1, rows, 1])), [0, 2])
        r = t.math.rsqrt(var + 1e-5)
        y = x * t.reshape(r, [1, rows, 1]) + t.reshape(-mean * r, [1, rows, 1])
        return t.reshape(y * gamma + beta, [2, TOKENS, WIDTH])

    return convert_fn(f, [([2, TOKENS, WIDTH], t.float32)])


@builder("fp16_vit_encoder")
def vit_encoder() -> bytes:
    """A 2-block pre-norm (ViT-like) encoder: LayerNormalization, MultiHeadAttention, GELU MLP,
    residual stream, and the final LayerNorm; the first LayerNorm sees the input itself."""
    t = tf()
    run = _encoder(t, 2, pre_norm=True, seed=3)
    return convert_fn(run, [([1, TOKENS, WIDTH], t.float32)])


@builder("fp16_bert_encoder")
def bert_encoder() -> bytes:
    """A 2-block post-norm (BERT-like) encoder: x + attention(x) -> LayerNorm -> x + MLP -> LayerNorm."""
    t = tf()
    run = _encoder(t, 2, pre_norm=False, seed=5)
    return convert_fn(run, [([1, TOKENS, WIDTH], t.float32)])


def scaled_input(path: str, scale: float, samples: int = 4, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs for a model with N(0, 1) x scale values: {input name: [samples, *shape]}, what
    `--inputs data.npz` takes."""
    from gpucompat import ir

    graph = ir.from_bytes(Path(path).read_bytes(), path).graphs[0]
    gen = np.random.default_rng(seed)
    return {t.name: (gen.standard_normal((samples, *t.shape)) * scale).astype(np.float32) for t in graph.inputs}


@builder("fp16_softmax")
def softmax() -> bytes:
    """SOFTMAX over the last axis of [1, 16, 16] logits (the builtin op)."""
    t = tf()
    return convert_fn(lambda x: t.nn.softmax(x, -1), [([1, TOKENS, TOKENS], t.float32)])


@builder("fp16_exp_softmax")
def exp_softmax() -> bytes:
    """A softmax with an extra 1 in the denominator (softmax_1, "attention can attend to nothing"),
    written out as EXP -> SUM -> ADD(1) -> DIV without max-subtraction (the converter keeps it;
    a plain exp / sum(exp) becomes the SOFTMAX op): exp passes fp16's 65504 at logits above 11.1."""
    t = tf()

    def f(x):
        e = t.exp(x)
        return e / (t.reduce_sum(e, -1, keepdims=True) + 1.0)

    return convert_fn(f, [([1, TOKENS, TOKENS], t.float32)])


@builder("fp16_fused_overflow")
def fused_overflow() -> bytes:
    """x * 1000 -> + 1 (RELU fused) -> * 0.001 over [1, 16, 32]: one fused kernel on the GPU whose
    intermediate passes 65504 once |x| passes 65.5, although the output stays small."""
    t = tf()
    up, down = np.full([WIDTH], 1000.0, np.float32), np.full([WIDTH], 0.001, np.float32)
    return convert_fn(lambda x: t.nn.relu(x * up + 1.0) * down, [([1, TOKENS, WIDTH], t.float32)])


@builder("fp16_wide_mean")
def wide_mean() -> bytes:
    """MEAN over 1024 channels of [1, 4, 1024]: at |x| ~ 100 its sum passes 65504, its result does not."""
    t = tf()
    return convert_fn(lambda x: t.reduce_mean(x, -1, keepdims=True) + 1.0, [([1, 4, 1024], t.float32)])


@builder("fp16_tiny_product")
def tiny_product() -> bytes:
    """x * 1e-9 -> EXP -> * 2: the product stays below fp16's smallest value (6e-8) for |x| < 60,
    so every value of it is 0 at fp16."""
    t = tf()
    return convert_fn(lambda x: t.exp(x * 1e-9) * 2.0, [([1, TOKENS, WIDTH], t.float32)])
