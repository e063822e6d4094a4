"""What the classic delegate's OpenGL ES path was measured to do (mediapipe 0.10.21's build on Mesa's
llvmpipe, confirm/gl_runner.py): the numerics grid's table (calibration/gl_delegate.json) read as
op checks, and the shapes the form keys omit, measured on one-op models. gl-delegate applies every
one; gpu-current on its gl backend (V2's GL path: the same kernels and model builder) applies those
of the GL kernels and builder (`ON_GL`), not those of the model builder's IsSupported, which
mediapipe pins older than gpu-current's source (docs/profiles.md)."""

from dataclasses import replace
from functools import lru_cache

from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.rules.support.context import Context
from gpucompat.rules.support.profile import Check, OpSupport
from gpucompat.rules.support.verdict import ACCEPT, Verdict, reject


@lru_cache(maxsize=1)
def _measured():
    from gpucompat.rules.support import calibration

    return calibration.Table(calibration.load(calibration.GL))


def fails_to_build(op, ctx: Context) -> Verdict:
    """The GL delegate builds no kernel for this op's form: the grid measured the form alone
    failing to build (calibration/gl_delegate.json "build"), so any model holding it loses its
    whole delegation (the interpreter restores the CPU plan)."""
    key = _measured().key(op)
    message = _measured().build_failure(key)
    if message is None:
        return ACCEPT
    return reject(f"the GL delegate cannot build this form ({key}): measured alone, it fails", "parse", message)


def not_taken(op, ctx: Context) -> Verdict:
    """The GL delegate leaves this op's form on the CPU: the grid measured it alone, and the
    delegate replaced nothing (calibration/gl_delegate.json "untaken")."""
    key = _measured().key(op)
    seen = _measured().observed(key)
    if seen is None or "untaken" not in seen:
        return ACCEPT
    return reject(f"the GL delegate leaves this form ({key}) on the CPU: measured alone, it was not taken",
                  runtime_message="not taken by the GL delegate (measured)")


def grouped_convolution(op, ctx: Context) -> Verdict:
    """A CONV_2D whose input has more channels than its filter (groups above 1) is taken, then its
    build fails: measured on one-op models, 2 groups "Convolution does not support more than 1
    group", 4 "No shader implementation for split" (the builder splits the input)."""
    x, w = op.input(0), op.input(1)
    if x is None or w is None or x.rank != 4 or w.rank != 4 or x.shape[3] in (w.shape[3], -1) or w.shape[3] <= 0:
        return ACCEPT
    groups = x.shape[3] // w.shape[3]
    message = ("Height and width should be 1., Convolution does not support more than 1 group" if groups == 2 else
               "No shader implementation for split")
    return reject(f"a grouped convolution ({groups} groups: {x.shape[3]} input channels, filter of {w.shape[3]})",
                  "parse", message)


def depth_multiplier_on_one_channel(op, ctx: Context) -> Verdict:
    """A DEPTHWISE_CONV_2D with a depth multiplier above 1 is taken only when its input has one
    channel: measured on one-op models (multiplier 2 on 4 channels left on the CPU; 2 and 4 on one
    channel, and 1 on 3 to 8 channels, taken)."""
    x = op.input(0)
    multiplier = getattr(op.options, "depthMultiplier", 1) if op.options is not None else 1
    if x is None or x.rank != 4 or multiplier <= 1 or x.shape[3] == 1:
        return ACCEPT
    return reject(f"depth multiplier {multiplier} on an input of {x.shape[3]} channels: this builder takes a "
                  "multiplier above 1 only on one channel", runtime_message="not taken by the GL delegate (measured)")


def full_lstm(op, ctx: Context) -> Verdict:
    """An LSTM on the full kernel (20 or 24 inputs) is taken, then the delegate throws while it
    parses it ("bad any_cast", the C++ exception reaching the caller): measured on 10 one-op LSTMs
    (plain, CIFG, peephole, projection, clipping, layer norm); the basic kernel builds."""
    if getattr(op.options, "kernelType", 1) == 0 and len(op.inputs) in (20, 24):
        return reject("an LSTM on the full kernel: the GL delegate throws while parsing it", "parse", "bad any_cast")
    return ACCEPT


def densify(op, ctx: Context) -> Verdict:
    """DENSIFY is taken, then its build fails: a float sparse constant below rank 4 "DENSIFY:
    Expected a 4D tensor of shape BxHxWxC but got 64x64", an int8 one "DENSIFY: Unexpected data
    type in sparse tensor" (measured on sparse FULLY_CONNECTED weights, fp32, fp16 and int8)."""
    t = op.input(0)
    if t is None:
        return ACCEPT
    if t.dtype_name not in ("FLOAT32", "FLOAT16"):
        return reject(f"DENSIFY of {t.dtype_name} sparse weights", "parse",
                      "DENSIFY: Unexpected data type in sparse tensor")
    if t.rank != 4:
        return reject(f"DENSIFY of rank-{t.rank} sparse weights", "parse",
                      "DENSIFY: Expected a 4D tensor of shape BxHxWxC but got " + "x".join(map(str, t.shape)))
    return ACCEPT


def rank3_padding(op, ctx: Context) -> Verdict:
    """A rank-3 PAD, PADV2 or MIRROR_PAD padding axis 1 or 2 fails the build: the delegate reads
    the paddings as for its BHWC layout and finds the batch padded ("Padding for BATCH is not
    supported."); measured on every such form of the grid, at batch 1 and above, and on a Keras
    TCN's causal padding."""
    x, pads = op.input(0), op.input(1)
    values = None if x is None or x.rank != 3 or pads is None else pads.data()
    if values is not None and values.shape == (3, 2) and (values[1:] != 0).any():
        return reject("a rank-3 pad of axis 1 or 2: the GL delegate reads it as padding the batch", "parse",
                      "Padding for BATCH is not supported.")
    return ACCEPT


# ops whose int result TFLite's kernels compute while the interpreter prepares, when their inputs
# are constants or so computed; the GL delegate takes each such op and fails to build it (measured
# after a SHAPE of a static tensor: GATHER, MUL, RESHAPE "Input tensor is not found in the graph.",
# REDUCE_PROD "bad input dims size: 0", CONCATENATION ending the process; ADD, PACK, SLICE and
# STRIDED_SLICE left on the CPU)
PREPARE_TIME = frozenset({"GATHER", "MUL", "RESHAPE", "REDUCE_PROD", "CONCATENATION", "CAST"})


def int_at_prepare(op, ctx: Context) -> Verdict:
    """An op of PREPARE_TIME reading an int tensor the interpreter computes while it prepares (not
    a constant): its tensors pass the delegate's type filter, so it is taken, and its build fails
    (the kernels find no such input in the GPU graph)."""
    computed = [t for t in op.inputs if t is not None and not ctx.is_const(t)
                and t.dtype_name.startswith(("INT", "UINT")) and ctx.at_prepare(t, PREPARE_TIME)]
    if not computed:  # registered for PREPARE_TIME's ops only (BUILD_BY_OP)
        return ACCEPT
    return reject(f"{op.name} of {computed[0].name!r}, an int tensor the interpreter computes while it prepares: the "
                  "GL delegate takes it, and its build fails", "parse", "Input tensor is not found in the graph.")


NAN_DECLARING = ("LOG", "SQRT", "RSQRT")  # their GL shader code declares a variable `nan`
CONVOLVING = ("CONV_2D",)  # measured: a FULLY_CONNECTED of a rank-3 or rank-4 input runs as one too


def nan_redeclared(op) -> Verdict:
    """Checked on a delegated op whose producer is delegated in the same partition
    (placement.py): LOG, SQRT or RSQRT right after a CONV_2D whose output is more than one row high (or a
    FULLY_CONNECTED of a rank-3 or rank-4 input), its only reader: the delegate fuses the two into
    one shader that declares `nan` twice, which Mesa's GLSL compiler refuses ("Shader compilation
    failed: 0:61(14): error: `nan' redeclared"), failing the build. Measured on one-op pairs (1x1
    convolutions of 4 to 64 channels, 8x8 fail and 1x23 build) and a Keras MFCC classifier's
    log-mel; EXP and TANH after the same producers, and any of them after a FULLY_CONNECTED of a
    rank-2 input or an ADD, build. A phone's GLSL compiler may accept the shader: this is the
    driver measured."""
    x = op.input(0)
    producer = None if x is None else x.producer
    if op.name not in NAN_DECLARING or producer is None or len(x.consumers) != 1:
        return ACCEPT
    out = producer.outputs[0].shape
    convolving = (producer.name in CONVOLVING and len(out) == 4 and out[1] > 1) or (
        producer.name == "FULLY_CONNECTED" and producer.input(0) is not None and producer.input(0).rank >= 3)
    if not convolving:
        return ACCEPT
    return reject(f"{op.name} fused into the {producer.name} before it: the shader declares `nan` twice, which Mesa's "
                  "GLSL compiler refuses", "parse", "Shader compilation failed: error: `nan' redeclared")


def on_gl(check: Check) -> Check:
    """`check` where the delegate ends up on its gl backend; accepted on any other."""

    def gl_only(op, ctx: Context) -> Verdict:
        return check(op, ctx) if ctx.options.backend == "gl" else ACCEPT

    gl_only.__doc__ = check.__doc__
    return gl_only


# The GL kernels' and builder's build failures: both profiles, on gl.
BUILD = (fails_to_build,)
BUILD_BY_OP = {B["CONV_2D"]: (grouped_convolution,), B["LSTM"]: (full_lstm,), B["DENSIFY"]: (densify,),
               **{B[name]: (rank3_padding,) for name in ("PAD", "PADV2", "MIRROR_PAD")},
               **{B[name]: (int_at_prepare,) for name in PREPARE_TIME}}
# mediapipe's pinned IsSupported: gl-delegate only.
TAKEN = (not_taken,)
TAKEN_BY_OP = {B["DEPTHWISE_CONV_2D"]: (depth_multiplier_on_one_channel,)}


def with_checks(ops: dict[int, OpSupport], common: tuple[Check, ...], by_op: dict[int, tuple[Check, ...]],
                wrap=lambda check: check) -> dict[int, OpSupport]:
    """`ops` with `common` and each op's `by_op` checks (through `wrap`) after their own."""
    return {code: replace(support, checks=(*support.checks, *map(wrap, (*by_op.get(code, ()), *common))))
            for code, support in ops.items()}
