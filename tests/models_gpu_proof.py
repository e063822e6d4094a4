"""Models for fix's and verify's account of the real GPU (tests/test_gpu_proof.py), as TensorFlow's
converter writes them. All names start with "gpuproof_"."""

import numpy as np

from modelgen import builder, const, convert_fn, tf

F = np.float32


@builder("gpuproof_sub_rank1")
def _sub_rank1() -> bytes:
    """SUB of a rank-1 tensor and a constant of the same shape: the executor computes it right,
    LiteRT's accelerator wrongly (rules/support/calibration/litert_gpu.json)."""
    return convert_fn(lambda a: a - const([16], 3), [([16], F)])


def _squeeze_output(g, producer, then_sub: bool) -> None:
    """Re-route `producer`'s output [1, N] (a model output) through a SQUEEZE to [N], and a SUB
    of a constant [N] after it when `then_sub`, so the model output becomes their result."""
    from ai_edge_litert.schema_py_generated import SqueezeOptionsT

    from gpucompat.ir import build

    out = producer.outputs[0]
    n = out.shape[-1]
    inner = build.tensor(g, out.name + "/inner", out.shape, out.dtype)
    producer.set_output(0, inner)
    build.reshape_tensor(out, (n,))
    squeezed = build.tensor(g, out.name + "/squeezed", (n,), out.dtype) if then_sub else out
    options = SqueezeOptionsT()
    options.squeezeDims = [0]
    g.insert_op(len(g.ops), build.operator(g, "SQUEEZE", [inner], [squeezed], options))
    if then_sub:
        g.insert_op(len(g.ops), build.operator(g, "SUB", [squeezed, build.constant(g, "sub/y", const([n], 3))], [out]))


@builder("gpuproof_squeeze_then_sub")
def _squeeze_then_sub() -> bytes:
    """Two TANHs, a SQUEEZE the GPU rejects, then that SUB: only the larger run (the TANHs) is
    delegated, so the SUB runs on the CPU. cleanup's SQUEEZE -> RESHAPE would join the runs and
    put the SUB on LiteRT's accelerator, which computes it wrongly. The converter writes the
    squeeze as a RESHAPE and moves the SUB before it; other exporters keep SQUEEZE, so the
    SQUEEZE and the SUB are put into the flatbuffer after the converted TANHs."""
    from gpucompat import ir

    t = tf()
    model = ir.from_bytes(convert_fn(lambda a: t.tanh(t.tanh(a)), [([1, 16], F)]))
    _squeeze_output(model.graphs[0], model.graphs[0].ops[-1], then_sub=True)
    return ir.to_bytes(model)


@builder("gpuproof_two_squeezes")
def _two_squeezes() -> bytes:
    """gpuproof_squeeze_then_sub beside a second output, TANH(b) squeezed: cleanup may turn that
    SQUEEZE into a RESHAPE (it delegates no known-wrong form), not the first."""
    from gpucompat import ir

    t = tf()
    model = ir.from_bytes(convert_fn(lambda a, b: (t.tanh(t.tanh(a)), t.tanh(b)), [([1, 16], F), ([1, 8], F)]))
    g = model.graphs[0]
    first, second = (next(op for op in g.ops if op.outputs[0] is out) for out in list(g.outputs))
    _squeeze_output(g, first, then_sub=True)
    _squeeze_output(g, second, then_sub=False)
    return ir.to_bytes(model)


@builder("gpuproof_mixed_rank")
def _mixed_rank() -> bytes:
    """ADD of a [85, 16] tensor and a constant [1, 85, 16] (known wrong): explicit-rank-4 rewrites
    it, adding RESHAPEs whose forms the calibration never measured."""
    return convert_fn(lambda a: a + const([1, 85, 16], 1), [([85, 16], F)])


@builder("gpuproof_gather_step4")
def _gather_step4() -> bytes:
    """GATHER of channels 0, 4, 8 by INT64 indices (the delegate refuses them) after a TANH:
    substitute-gather makes it a STRIDED_SLICE with step 4, a form the numerics grid never
    measured."""
    t = tf()
    return convert_fn(lambda x: t.gather(t.tanh(x), t.constant([0, 4, 8], t.int64), axis=3) * 2.0,
                      [([1, 4, 4, 12], F)])
