"""Models for fix's and verify's account of the real GPU (tests/test_gpu_proof.py), written with
the IR builder (tests/irbuild.py) as TensorFlow's converter writes them. All names start with
"gpuproof_"."""

import numpy as np

from irbuild import IRModel, one_op, options
from modelgen import builder, const


@builder("gpuproof_sub_rank1")
def _sub_rank1() -> bytes:
    """SUB of a rank-1 tensor and a constant of the same shape: the executor computes it right,
    LiteRT's accelerator wrongly (rules/calibration/litert_gpu.json)."""
    return one_op("SUB", [16], const([16], 3))


def _squeezed(m: IRModel, name: str, inner: int, n: int, then_sub: bool) -> int:
    """`inner` [1, N] through a SQUEEZE to [N] (the GPU rejects it), and a SUB of a constant [N]
    after it when `then_sub`: the branch's model output."""
    squeezed = m.tensor(f"{name}/squeezed" if then_sub else name, [n])
    m.graph.op("SQUEEZE", [inner], [squeezed], options("Squeeze", squeezeDims=[0]))
    if not then_sub:
        return squeezed
    out = m.tensor(name, [n])
    m.graph.op("SUB", [squeezed, m.const(f"{name}/sub/y", const([n], 3))], [out])
    return out


@builder("gpuproof_squeeze_then_sub")
def _squeeze_then_sub() -> bytes:
    """Two TANHs, a SQUEEZE the GPU rejects, then that SUB: only the larger run (the TANHs) is
    delegated, so the SUB runs on the CPU. cleanup's SQUEEZE -> RESHAPE would join the runs and
    put the SUB on LiteRT's accelerator, which computes it wrongly. The converter writes the
    squeeze as a RESHAPE and moves the SUB before it; other exporters keep SQUEEZE, as here."""
    m = IRModel(signature="serving_default")
    inner = m.op("TANH", [m.op("TANH", [m.input("a", [1, 16])], [1, 16])], [1, 16])
    m.output(_squeezed(m, "out", inner, 16, then_sub=True))
    return m.bytes()


@builder("gpuproof_two_squeezes")
def _two_squeezes() -> bytes:
    """Two outputs: TANH(TANH(a)) squeezed, and TANH(b) squeezed then the SUB: cleanup may turn
    the first SQUEEZE into a RESHAPE (it delegates no known-wrong form), not the second."""
    m = IRModel(signature="serving_default")
    a, b = m.input("a", [1, 16]), m.input("b", [1, 8])
    inner_a = m.op("TANH", [m.op("TANH", [a], [1, 16])], [1, 16])
    inner_b = m.op("TANH", [b], [1, 8])
    with_sub = _squeezed(m, "out_b", inner_b, 8, then_sub=True)
    m.output(with_sub, _squeezed(m, "out_a", inner_a, 16, then_sub=False))
    return m.bytes()


@builder("gpuproof_mixed_rank")
def _mixed_rank() -> bytes:
    """ADD of a [85, 16] tensor and a constant [1, 85, 16] (known wrong): explicit-rank-4 rewrites
    it, adding RESHAPEs whose forms the calibration never measured."""
    return one_op("ADD", [85, 16], const([1, 85, 16], 1))




@builder("gpuproof_gather_step4")
def _gather_step4() -> bytes:
    """GATHER of channels 0, 4, 8 by INT64 indices (the delegate refuses them) after a TANH, then a
    MUL by 2: substitute-gather makes it a STRIDED_SLICE with step 4, a form the numerics grid never
    measured. Written as the converter writes `tf.gather(tf.tanh(x), int64 [0,4,8], axis=3) * 2`."""
    m = IRModel(signature="serving_default")
    x = m.input("serving_default_args_0:0", [1, 4, 4, 12])
    tanh = m.op("TANH", [x], [1, 4, 4, 12], output_name="Tanh")
    gathered = m.op("GATHER", [tanh, m.const("Const", np.array([0, 4, 8], np.int64))], [1, 4, 4, 3],
                    options=options("Gather", axis=3, batchDims=0), output_name="GatherV2;GatherV2/axis")
    m.output(m.op("MUL", [gathered, m.const("mul/y", np.array(2.0, np.float32))], [1, 4, 4, 3],
                  options=options("Mul"), output_name="PartitionedCall:0"))
    return m.bytes()
