"""Models for fix's and verify's account of the real GPU (tests/test_gpu_proof.py), as TensorFlow's
converter writes them. All names start with "gpuproof_"."""

import numpy as np

from modelgen import builder, const, convert_fn, tf

F = np.float32


@builder("gpuproof_sub_rank1")
def _sub_rank1() -> bytes:
    """SUB of a rank-1 tensor and a constant of the same shape: the executor computes it right,
    LiteRT's accelerator wrongly (rules/calibration/litert_gpu.json)."""
    return convert_fn(lambda a: a - const([16], 3), [([16], F)])


@builder("gpuproof_squeeze_then_sub")
def _squeeze_then_sub() -> bytes:
    """Two TANHs, a SQUEEZE the GPU rejects, then that SUB: only the larger run (the TANHs) is
    delegated, so the SUB runs on the CPU. cleanup's SQUEEZE -> RESHAPE would join the runs and
    put the SUB on LiteRT's accelerator, which computes it wrongly. The converter writes the
    squeeze as a RESHAPE and moves the SUB before it; other exporters keep SQUEEZE, so the
    SQUEEZE and the SUB are put into the flatbuffer after the converted TANHs."""
    from ai_edge_litert.schema_py_generated import SqueezeOptionsT

    from gpucompat import ir
    from gpucompat.ir import build

    t = tf()
    model = ir.from_bytes(convert_fn(lambda a: t.tanh(t.tanh(a)), [([1, 16], F)]))
    g = model.graphs[0]
    last = g.ops[-1]
    out = last.outputs[0]
    inner = build.tensor(g, "tanh2", (1, 16), out.dtype)
    squeezed = build.tensor(g, "squeezed", (16,), out.dtype)
    last.set_output(0, inner)
    build.reshape_tensor(out, (16,))
    options = SqueezeOptionsT()
    options.squeezeDims = [0]
    g.insert_op(len(g.ops), build.operator(g, "SQUEEZE", [inner], [squeezed], options))
    g.insert_op(len(g.ops), build.operator(g, "SUB", [squeezed, build.constant(g, "sub/y", const([16], 3))], [out]))
    return ir.to_bytes(model)


@builder("gpuproof_mixed_rank")
def _mixed_rank() -> bytes:
    """ADD of a [85, 16] tensor and a constant [1, 85, 16] (known wrong): explicit-rank-4 rewrites
    it, adding RESHAPEs whose forms the calibration never measured."""
    return convert_fn(lambda a: a + const([1, 85, 16], 1), [([85, 16], F)])
