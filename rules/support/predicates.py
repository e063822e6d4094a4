"""Reusable predicates that profiles compose. Each mirrors a helper of the runtime's checks
(tflite/tools/versioning/gpu_compatibility.cc = GC, delegates/gpu/common/model_builder*.cc = MB)
and returns a Verdict. A predicate factory returns a Check: (op, ctx) -> Verdict.

The layer of a rejection follows where the runtime rejects: IsSupported / GC checks are
"partition" (the op stays on the CPU), Parse checks are "parse" (the whole delegation fails),
kernel gaps are "backend". Messages in `runtime_message` are the runtime's own words.
"""

from __future__ import annotations

import struct

from gpucompat.ir import Op, Tensor, dtypes, opcodes
from gpucompat.layout import bhwc
from gpucompat.rules.support.context import Context
from gpucompat.rules.support.profile import Check
from gpucompat.rules.support.verdict import ACCEPT, Layer, Verdict, first_failure, reject

# TfLiteFusedActivation values (schema ActivationFunctionType)
ACTIVATION_NAMES = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT", 6: "SIGMOID"}
ALL_BUT_SIGN_BIT = (0, 1, 2, 3, 4, 6)
SIGN_BIT, SIGMOID, TANH = 5, 6, 4
COMPARISONS = frozenset(opcodes.BUILTIN[n] for n in
                        ("GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL"))
FLOATS = (dtypes.FLOAT32, dtypes.FLOAT16)


def _opt(op: Op, name: str, default=0):
    """A field of the op's builtin options (the default when options or field are absent)."""
    value = getattr(op.options, name, None)
    return default if value is None else value


def runtime_inputs(op: Op, ctx: Context) -> list[Tensor]:
    """Inputs that are neither constant nor optional (GetNumberOfRuntimeInputsForNode); the
    list is shared by the op's checks: read it, never edit it."""
    return ctx.split_inputs(op)[0]


def const_inputs(op: Op, ctx: Context) -> list[Tensor]:
    """Constant inputs (kTfLiteMmapRo at runtime: tensors with data in the file); shared, as
    runtime_inputs' list is."""
    return ctx.split_inputs(op)[1]


def io_counts(runtime: int | tuple[int, ...], outputs: int | None = 1, const: int | None = None,
              layer: Layer = "partition") -> Check:
    """GC CheckInputsOutputs / CheckInputsConstsOutputs: the number of runtime inputs (one of
    `runtime`), of constant inputs (when given; checked first, as GC does) and of outputs."""
    allowed = (runtime,) if isinstance(runtime, int) else runtime

    def check(op: Op, ctx: Context) -> Verdict:
        c = len(const_inputs(op, ctx))
        if const is not None and c != const:
            return reject(f"needs {const} constant input(s), has {c}", layer,
                          f"Expected {const} const input tensor(s), but node has {c} const input(s).")
        n = len(runtime_inputs(op, ctx))
        if n not in allowed:
            want = " or ".join(map(str, allowed))
            return reject(f"needs {want} runtime (non-constant) input(s), has {n}", layer,
                          f"Expected {want} runtime input tensor(s), but node has {n} runtime input(s).")
        if outputs is not None and len(op.outputs) != outputs:
            return reject(f"needs {outputs} output(s), has {len(op.outputs)}", layer,
                          f"Expected {outputs} output tensor(s), but node has {len(op.outputs)} output(s).")
        return ACCEPT

    return check


def operands(layer: Layer = "partition", constants: bool = False) -> Check:
    """GC two-argument group (and MB ElementwiseOperationParser::Parse for ADD/MUL, where the same
    rule is only met at Parse): (2 runtime, 0 const) or (1 runtime, 1 const), 1 output; with
    `constants`, (0 runtime, 2 const) too (ML Drift's elementwise parser takes two constants)."""
    allowed = ((2, 0), (1, 1), (0, 2)) if constants else ((2, 0), (1, 1))

    def check(op: Op, ctx: Context) -> Verdict:
        r, c = len(runtime_inputs(op, ctx)), len(const_inputs(op, ctx))
        if (r, c) in allowed and len(op.outputs) == 1:
            return ACCEPT
        return reject(f"needs 2 runtime inputs or 1 runtime + 1 constant input, has {r} runtime + {c} constant",
                      layer, "Op can only handle 1 or 2 operand(s).")

    return check


_OPERANDS = operands()


def input_count(n: int, message: str, at_least: bool = False) -> Check:
    """GC: the op must have exactly (or at least) `n` inputs, e.g. "ADD requires two input tensors."."""

    def check(op: Op, ctx: Context) -> Verdict:
        have = len(op.inputs) - op.inputs.count(None)  # the present ones, without making their list
        if have == n or (at_least and have > n):
            return ACCEPT
        return reject(f"needs {'at least ' if at_least else ''}{n} inputs, has {have}",
                      runtime_message=message.format(n=have))

    return check


def fused_activation(allowed: tuple[int, ...] = ALL_BUT_SIGN_BIT, layer: Layer = "partition") -> Check:
    """GC IsActivationSupported (partition) / MBH MaybeFuseActivation (parse): the fused activation
    must be one the delegate can append as a node."""

    def check(op: Op, ctx: Context) -> Verdict:
        act = _opt(op, "fusedActivationFunction")
        if act in allowed:
            return ACCEPT
        name = ACTIVATION_NAMES.get(act, str(act))
        return reject(f"fused activation {name} is not supported", layer,
                      f"TfLiteFusedActivation.kTfLiteAct{name.title().replace('_', '')}")

    return check


def positive_pair(what: str, h_field: str, w_field: str) -> Check:
    """GC CheckStrides / CheckDilation / CheckKernels: both values of a (height, width) option
    pair must be > 0 ("Incorrect stride values: stride_height = 0, stride_width = 1")."""

    def check(op: Op, ctx: Context) -> Verdict:
        h, w = _opt(op, h_field, 1), _opt(op, w_field, 1)
        if h > 0 and w > 0:
            return ACCEPT
        return reject(f"{what} must be positive, is {h}x{w}",
                      runtime_message=f"Incorrect {what} values: {what}_height = {h}, {what}_width = {w}")

    return check


STRIDES = positive_pair("stride", "strideH", "strideW")
DILATIONS = positive_pair("dilation", "dilationHFactor", "dilationWFactor")
KERNELS = positive_pair("kernel", "filterHeight", "filterWidth")


def conv_inputs(op: Op, ctx: Context) -> Verdict:
    """GC CheckConvoultionInputOutput: at most 2 runtime inputs, 1 output, and with 1 runtime input
    the weights (input 1) must exist."""
    n = len(runtime_inputs(op, ctx))
    if n > 2:
        return reject(f"at most 2 runtime inputs, has {n}",
                      runtime_message=f"Expected 1 or 2 input tensor(s), but node has {n} runtime inputs.")
    if len(op.outputs) != 1:
        return reject(f"needs 1 output, has {len(op.outputs)}",
                      runtime_message=f"Expected 1 output tensor(s), but node has {len(op.outputs)} runtime outputs.")
    if n == 1 and len(op.inputs) < 2:
        return reject("the weights input is missing",
                      runtime_message=f"Requested index goes beyond array size: 1 vs {len(op.inputs)}")
    return ACCEPT


def conv_runtime_inputs(op: Op, ctx: Context) -> Verdict:
    """GC CheckConvoultionInputOutput as ML Drift runs it (LiteRT 2.3.0): conv_inputs, and a
    convolution with no runtime input at all is refused in the same words; observed on CONV_2D,
    DEPTHWISE_CONV_2D and TRANSPOSE_CONV of float32 constants and of fp16 ones behind DEQUANTIZE."""
    if not runtime_inputs(op, ctx):
        return reject("needs 1 or 2 runtime inputs, has none",
                      runtime_message="Expected 1 or 2 input tensor(s), but node has 0 runtime inputs.")
    return conv_inputs(op, ctx)


def runtime_input(index: int, what: str, message: str, layer: Layer = "partition") -> Check:
    """Input `index` must be read at run time: a parser that reads it as a graph value refuses a
    constant there with `message`, or, at "parse", its model builder aborts on it; observed with
    ML Drift (LiteRT 2.3.0) on FULLY_CONNECTED's, CONV_2D's and SLICE's input (refused) and
    EMBEDDING_LOOKUP's ids (the build aborts), among others (litert_mldrift.py)."""

    def check(op: Op, ctx: Context) -> Verdict:
        t = op.input(index)
        if t is not None and ctx.is_const(t):
            return reject(f"{what} {t.name!r} (input {index}) is a constant: the GPU reads it only as a runtime "
                          f"tensor", layer, message)
        return ACCEPT

    return check


def runtime_weights_channels(op: Op, ctx: Context) -> Verdict:
    """MB Conv2DOperationParser::Parse: with runtime weights the input's channels must equal the
    weights' input channels (no grouped convolution with runtime weights)."""
    if len(runtime_inputs(op, ctx)) != 2:
        return ACCEPT
    src, w = bhwc(op.input(0).shape), bhwc(op.input(1).shape)
    if src is None or w is None or src[3] == w[3]:
        return ACCEPT
    return reject("grouped convolution with runtime weights is not supported", "parse",
                  "No support of CONVOLUTION_2D with runtime grouped weights.")


def requires_options(op: Op, ctx: Context) -> Verdict:
    """GC RetrieveBuiltinData: the op must carry its builtin options (the parser reads them)."""
    if op.options is None:
        return reject("builtin options are missing", runtime_message="Unable to retrieve builtin_data.")
    return ACCEPT


def broadcast_standard(op: Op, ctx: Context) -> Verdict:
    """GC CheckAddMulBroadcastCompatibility with kStandard (what the runtime uses): when both
    inputs have rank > 1 and the ranks differ, only 4-D (batch 1) with 3-D, 4-D [1,x,y,z] with
    [1,1], and 4-D [b,x,y,c] with [b,c] broadcast."""
    a, b = op.input(0), op.input(1)
    if a is None or b is None:
        return ACCEPT
    s0, s1 = a.shape, b.shape
    if len(s0) <= 1 or len(s1) <= 1 or len(s0) == len(s1):
        return ACCEPT
    longer, shorter = (s0, s1) if len(s0) >= len(s1) else (s1, s0)
    ok = (len(longer) == 4 and len(shorter) == 3 and longer[0] == 1) or (
        len(longer) == 4 and len(shorter) == 2
        and ((longer[0] == 1 and shorter == (1, 1)) or (longer[0] == shorter[0] and longer[3] == shorter[1])))
    if ok:
        return ACCEPT
    return reject(f"broadcasting {list(s0)} with {list(s1)} is not supported (only 4-D with 3-D, [1,1] or [b,c])",
                  runtime_message=f"Doesn't support broadcasting - input0: [{','.join(map(str, s0))}], "
                                  f"input1: [{','.join(map(str, s1))}]")


def identical_inputs(op: Op, ctx: Context) -> Verdict:
    """MB ElementwiseOperationParser::Parse: two-input ops other than ADD/MUL whose two inputs are
    the same tensor are refused at Parse, which aborts the whole delegation."""
    ins = op.present_inputs
    if len(ins) >= 2 and ins[0] is ins[1]:
        return reject("both inputs are the same tensor", "parse",
                      "No support of few identical inputs in the same operation.")
    return ACCEPT


def const_input(index: int, what: str, layer: Layer = "partition", message: str | None = None) -> Check:
    """Input `index` must be a constant (axes, paddings, shapes, sizes read at Parse; ML Drift's
    PRELU alpha, refused with `message`)."""

    def check(op: Op, ctx: Context) -> Verdict:
        t = op.input(index)
        if t is not None and not ctx.is_const(t):
            return reject(f"{what} (input {index}) must be constant", layer, message)
        return ACCEPT

    return check


def read_as_output_type(index: int, message: str) -> Check:
    """A constant at input `index` must be read in the output's type: fp16 weights behind their
    DEQUANTIZE, which the delegate reads as the FLOAT16 constant (Context.source), into a float32
    output are refused with `message`; observed with ML Drift (LiteRT 2.3.0) on GATHER's table and
    CUMSUM's input (litert_mldrift.py)."""

    def check(op: Op, ctx: Context) -> Verdict:
        t, out = op.input(index), (op.outputs or [None])[0]
        if t is None or out is None or not ctx.is_const(t) or ctx.source(t).dtype == out.dtype:
            return ACCEPT
        return reject(f"input {index} is read as a {ctx.source(t).dtype_name} constant and the output is "
                      f"{out.dtype_name}", runtime_message=message)

    return check


def shape_mappable(op: Op, ctx: Context) -> Verdict:
    """MBH ExtractTensorShape, called on every runtime input and output at Parse: rank 0 (a scalar)
    or rank >= 5 has no BHWC view, and the whole delegation fails (model_builder_helper.cc ExtractTensorShape)."""
    for tensors in (runtime_inputs(op, ctx), op.outputs):
        for t in tensors:
            if not 1 <= len(t.shape) <= 4:  # where bhwc() has no view
                return reject(f"runtime tensor {t.name!r} has rank {t.rank}; the GPU graph needs rank 1 to 4",
                              "parse", f'Tensor "{t.name}" has bad input dims size: {t.rank}.')
    return ACCEPT


def int32_const_axes(index: int = 1) -> Check:
    """GC CheckAxesAreInt32Const: the axes input must be a constant INT32 tensor."""

    def check(op: Op, ctx: Context) -> Verdict:
        axes = op.input(index)
        if axes is None or not ctx.is_const(axes):
            return reject("axes must be constant", runtime_message=f"{op.name} is only supported with constant axes.")
        if axes.dtype != dtypes.INT32:
            return reject(f"axes must be INT32, are {axes.dtype_name}",
                          runtime_message=f"{op.name} supports int32 tensor for axes. But node has {axes.dtype_name}")
        return ACCEPT

    return check


def depthwise_shapes(op: Op, ctx: Context) -> Verdict:
    """GC CheckDepthwiseConvGpuDelegateCompatibility, shape part: input, filter and output 4-D,
    same batch, filter and output channels equal, output C = input C * depth_multiplier, bias
    size = output C."""
    x, w, y = op.input(0), op.input(1), op.outputs[0] if op.outputs else None
    bias = op.input(2)
    for name, t in (("input", x), ("filter", w), ("output", y)):
        if t is None or t.rank != 4:
            return reject(f"{name} must be 4-D", runtime_message=f"{name}.dims.size != 4")
    mult = _opt(op, "depthMultiplier", 1)
    problems = [
        (x.shape[0] != y.shape[0], "input and output batch differ", "input.b != output.b"),
        (w.shape[3] != y.shape[3], "filter and output channels differ", "filter.i != output.c"),
        (y.shape[3] != x.shape[3] * mult, "output channels != input channels * depth_multiplier",
         "output.c != input.c * depth_multiplier"),
        (bias is not None and bias.num_elements != y.shape[3], "bias size != output channels", "bias.size != output.c"),
    ]
    for bad, reason, message in problems:
        if bad:
            return reject(reason, runtime_message=message)
    return ACCEPT


def fully_connected_options(op: Op, ctx: Context) -> Verdict:
    """GC FullyConnected: DEFAULT weights format, at most 2 runtime inputs, keep_num_dims only
    when input and output ranks are equal."""
    fmt = _opt(op, "weightsFormat")
    if fmt != 0:
        return reject("shuffled (4x16 int8) weights format is not supported",
                      runtime_message=f"Unsupported FullyConnected weights format: {fmt}")
    if len(runtime_inputs(op, ctx)) > 2:
        return reject("more than 2 runtime inputs",
                      runtime_message="FullyConnected doesn't support more than 2 runtime inputs.")
    x, y = op.input(0), op.outputs[0]
    if _opt(op, "keepNumDims", False) and x is not None and x.rank != y.rank:
        return reject("keep_num_dims with different input and output ranks",
                      runtime_message="Input and output dimensions different and FullyConnected doesn't "
                                      "support keep_num_dims.")
    return ACCEPT


def fully_connected_channels(op: Op, ctx: Context) -> Verdict:
    """MB FullyConnectedOperationParser::Parse: with constant weights [out, in], the input's
    channel count (last dim of its BHWC view) must equal `in`; otherwise Parse fails."""
    x, w = op.input(0), op.input(1)
    if x is None or w is None or not ctx.is_const(w) or len(runtime_inputs(op, ctx)) == 2:
        return ACCEPT
    view, ws = bhwc(x.shape), ctx.source(w).shape
    if view is None or len(ws) != 2 or view[3] == ws[1]:
        return ACCEPT
    return reject(f"input channels ({view[3]}) differ from the weights' input size ({ws[1]})", "parse",
                  "Amount of input channels should match weights width")


def paddings_shape(op: Op, ctx: Context) -> Verdict:
    """GC PAD/PADV2/MIRROR_PAD: the paddings tensor (input 1) exists and is 4x2 or 3x2."""
    pads = op.input(1)
    if pads is None:
        return reject("paddings input is missing")
    s = pads.shape
    if len(s) != 2:
        return reject(f"paddings must be 2-D, is {len(s)}-D",
                      runtime_message=f"Invalid paddings tensor dimension: expected 2 dim, got {len(s)} dim")
    if s[0] not in (3, 4) or s[1] != 2:
        return reject(f"paddings must be 4x2 or 3x2, is {s[0]}x{s[1]}",
                      runtime_message=f"Invalid paddings tensor shape: expected 4x2 or 3x2, got {s[0]}x{s[1]}")
    return ACCEPT


def mirror_pad_reflect(op: Op, ctx: Context) -> Verdict:
    """GC MIRROR_PAD: only REFLECT mode (schema MirrorPadMode REFLECT = 0)."""
    mode = _opt(op, "mode")
    if mode == 0:
        return ACCEPT
    # the runtime prints TfLiteMirrorPaddingMode, the schema's value + 1 (builtin_op_data.h)
    return reject("only REFLECT mirror padding is supported (SYMMETRIC is not)",
                  runtime_message=f"Only Reflective padding is supported for Mirror Pad operation. "
                                  f"But node has {mode + 1}")


def input_rank_in(ranks: tuple[int, ...], message: str) -> Check:
    """GC SLICE / STRIDED_SLICE: input 0 must have one of `ranks`."""

    def check(op: Op, ctx: Context) -> Verdict:
        x = op.input(0)
        if x is not None and x.rank in ranks:
            return ACCEPT
        rank = x.rank if x is not None else 0
        return reject(f"input has rank {rank}; only {' or '.join(map(str, ranks))}-D is supported",
                      runtime_message=message.format(rank=rank))

    return check


def strided_slice_masks(op: Op, ctx: Context) -> Verdict:
    """GC STRIDED_SLICE: no ellipsis, new-axis or shrink-axis mask."""
    for field, name, message in (
            ("ellipsisMask", "ellipsis_mask", "Slice does not support ellipsis_mask."),
            ("newAxisMask", "new_axis_mask", "Slice does not support new_axis_mask."),
            ("shrinkAxisMask", "shrink_axis_mask", "Slice does not support shrink_axis_mask parameter. ")):
        if _opt(op, field):
            return reject(f"{name} is not supported", runtime_message=message)
    return ACCEPT


def positive_slice_strides(op: Op, ctx: Context) -> Verdict:
    """MB StridedSliceOperationParser::Parse: strides must be > 0 (no reverse slices)."""
    strides = op.input(3)
    data = ctx.source(strides).data() if strides is not None and ctx.is_const(strides) else None
    if data is None:
        return ACCEPT
    if (data == 0).any():
        return reject("a stride is zero", "parse", "stride values must be non-zero")
    if (data < 0).any():
        return reject("negative strides (reverse slices) are not supported", "parse",
                      "Reverse slices are not supported.")
    return ACCEPT


def resize_flags(op: Op, ctx: Context) -> Verdict:
    """GC RESIZE_BILINEAR: align_corners and half_pixel_centers may not both be set."""
    if _opt(op, "alignCorners", False) and _opt(op, "halfPixelCenters", False):
        return reject("align_corners together with half_pixel_centers is not supported",
                      runtime_message="If half_pixel_centers is True, align_corners must be False.")
    return ACCEPT


def softmax_beta_one(op: Op, ctx: Context) -> Verdict:
    """GC SOFTMAX: beta must be 1."""
    beta = _opt(op, "beta", 1.0)
    if beta == 1:
        return ACCEPT
    return reject(f"beta must be 1, is {beta:g}", runtime_message="Softmax.beta != 1 is not supported.")


def block_size_above_one(op: Op, ctx: Context) -> Verdict:
    """GC DEPTH_TO_SPACE / SPACE_TO_DEPTH: block_size must be > 1 (1 is a no-op)."""
    size = _opt(op, "blockSize")
    if size > 1:
        return ACCEPT
    if size == 1:
        return reject("block_size 1 is a no-op and is rejected",
                      runtime_message=f"{op.name} block_size = 1 is a no-op.")
    return reject(f"block_size must be > 1, is {size}", runtime_message=f"{op.name} block_size must be > 1.")


def cast_types(op: Op, ctx: Context) -> Verdict:
    """GC CAST: bool -> f16/f32, f16/f32 -> bool, {f32, i32} -> {f32, i32}."""
    src, dst = op.input(0), op.outputs[0]
    a, b = src.dtype, dst.dtype
    if (a == dtypes.BOOL and b in FLOATS) or (a in FLOATS and b == dtypes.BOOL) or (
            a in (dtypes.FLOAT32, dtypes.INT32) and b in (dtypes.FLOAT32, dtypes.INT32)):
        return ACCEPT
    return reject(f"CAST {src.dtype_name} -> {dst.dtype_name} is not supported",
                  runtime_message=f"Not supported Cast case. Input type: {src.dtype_name} and output type: "
                                  f"{dst.dtype_name}")


def cast_from_bool(op: Op, ctx: Context) -> Verdict:
    """MB CastOperationParser::IsSupported: a bool -> float CAST needs its bool input to have one
    producer and one consumer, and its output to be read by exactly one op (a CAST that is a
    graph output runs on the CPU)."""
    src, dst = op.input(0), op.outputs[0]
    if src is None or src.dtype != dtypes.BOOL or dst.dtype not in FLOATS:
        return ACCEPT
    if src.producer is None or len(src.consumers) != 1:
        return reject("the bool input must be produced by one op and read only by this CAST",
                      runtime_message="Not supported cast case")
    if len(dst.consumers) != 1:
        return reject("a CAST from bool whose output is not read by exactly one op runs on the CPU",
                      runtime_message="Cast from bool not supported for outputs")
    return ACCEPT


def comparison_consumer(op: Op, ctx: Context) -> Verdict:
    """MB ElementwiseOperationParser::IsSupported for GREATER/LESS/EQUAL/...: the bool output must
    have one consumer, a CAST / SELECT / SELECT_V2 whose output is FLOAT16/FLOAT32."""
    out = op.outputs[0] if op.outputs else None
    if out is None or len(out.consumers) != 1:
        return reject("the bool result must be read by exactly one op",
                      runtime_message="Not supported logical op case")
    nxt = out.consumers[0]
    if nxt.name in ("CAST", "SELECT", "SELECT_V2") and nxt.outputs and nxt.outputs[0].dtype in FLOATS:
        return ACCEPT
    return reject(f"the bool result feeds {nxt.name}; only a CAST/SELECT/SELECT_V2 with float output is supported",
                  runtime_message="Not supported logical op case.")


def _scalar_like(t: Tensor, out: Tensor) -> bool:
    s = t.shape
    return len(s) == 0 or s == out.shape or (len(s) == 1 and s[0] <= 1)


def select_v2(op: Op, ctx: Context) -> Verdict:
    """GC CheckSelectV2GpuDelegateCompatibility: 3 inputs, 1 output; condition BOOL/F16/F32; the
    if/else tensors either shaped like the output or scalar-like; a *constant* 2-D if/else is
    rejected (the code tests is_const although its message says the opposite)."""
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        return reject("needs 3 inputs and 1 output", runtime_message="Expected 3 inputs and 1 output")
    cond, out = op.input(0), op.outputs[0]
    general = ("Cond must be float or bool type, if, else tensors must be either be same the shape as output "
               "or constant, scalar.")
    if cond.dtype not in (dtypes.BOOL, *FLOATS):
        return reject(f"condition is {cond.dtype_name}; BOOL, FLOAT16 or FLOAT32 only", runtime_message=general)
    for i, name in ((1, "if"), (2, "else")):
        t = op.input(i)
        if not _scalar_like(t, out):
            return reject(f"the {name} tensor must have the output's shape or be a scalar", runtime_message=general)
        if ctx.is_const(t) and t.rank == 2:
            return reject(f"a constant 2-D {name} tensor is not supported",
                          runtime_message=f"2-D {name} tensor only supported if constant.")
    return ACCEPT


def one_hot(op: Op, ctx: Context) -> Verdict:
    """GC CheckOneHotGpuDelegateCompatibility: INT32 indices; axis -1 or, literally, equal to the
    size of the last indices dim; only batch and last dims non-1; on/off constant FLOAT32 scalars."""
    general = ("Indices must be int32 type, on/off tensors must be constant, scalar, float type, axis must be -1 "
               "or last dim")
    if len(op.inputs) != 4 and len(op.outputs) != 1:
        return reject("needs 4 inputs and 1 output", runtime_message="Expects 4 inputs and 1 output")
    idx = op.input(0)
    if idx.dtype != dtypes.INT32:
        return reject(f"indices are {idx.dtype_name}; INT32 only", runtime_message=general)
    dims, axis = idx.shape, _opt(op, "axis", -1)
    if axis != -1 and (not dims or axis != dims[-1]):
        return reject(f"axis {axis} is neither -1 nor the size of the last indices dimension", runtime_message=general)
    for i in range(len(dims) - 1):
        if not (len(dims) > 3 and i == 0) and dims[i] != 1:
            return reject(f"indices dimension {i} is {dims[i]}; only batch and last may exceed 1",
                          runtime_message=f"Unspported non-singleton dim at {i}")
    for i, name in ((2, "on"), (3, "off")):
        t = op.input(i)
        if t is None or t.dtype != dtypes.FLOAT32 or not ctx.is_const(t) or t.rank > 1 or t.num_elements > 1:
            return reject(f"the {name} value must be a constant FLOAT32 scalar", runtime_message=general)
    return ACCEPT


def gather(op: Op, ctx: Context) -> Verdict:
    """GC GATHER: (2 runtime) or (1 runtime + 1 const) inputs, 1 output; indices 1-D INT32."""
    counts = _OPERANDS(op, ctx)
    if not counts.ok:
        return counts
    idx = op.input(1)
    if idx.rank != 1:
        return reject(f"indices must be 1-D, are {idx.rank}-D", runtime_message="Only support 1D indices")
    if idx.dtype != dtypes.INT32:
        return reject(f"indices must be INT32, are {idx.dtype_name}", runtime_message="Only accept INT32 indices")
    return ACCEPT


def cumsum(op: Op, ctx: Context) -> Verdict:
    """GC CheckCumsumGpuDelegateCompatibility: 2 inputs; float input, output of the same type;
    axis a constant INT32."""
    if len(op.inputs) != 2:
        return reject("needs 2 inputs", runtime_message="Expects 2 inputs and 1 output")
    x, axis, y = op.input(0), op.input(1), op.outputs[0]
    if x.dtype not in FLOATS or y.dtype != x.dtype or axis.dtype != dtypes.INT32 or not ctx.is_const(axis):
        return reject("input/output must be float and the axis a constant INT32",
                      runtime_message="Input/output must be float type and indices must be constant int32 type")
    return ACCEPT


def sparse_input(op: Op, ctx: Context) -> Verdict:
    """MB DensifyOperationParser::Parse: the input must be a sparse constant."""
    t = op.input(0)
    if t is not None and t.is_sparse:
        return ACCEPT
    return reject("the input is not a sparse constant", "parse", "Input tensor must be sparse.")


def dequantize_input(op: Op, ctx: Context) -> Verdict:
    """GC DEQUANTIZE: 1 input and 1 output; INT16 input is not supported."""
    if len(op.present_inputs) != 1 or len(op.outputs) != 1:
        return reject("needs 1 input and 1 output")
    if op.input(0).dtype == dtypes.INT16:
        return reject("INT16 dequantization is not supported", runtime_message="Unsupported dequantization type.")
    return ACCEPT


def quantized_output(op: Op, ctx: Context) -> Verdict:
    """MB QuantizeOperationParser::Parse: the output must carry quantization parameters."""
    if op.outputs and op.outputs[0].quantization is not None:
        return ACCEPT
    return reject("the output has no quantization parameters", "parse",
                  "Encountered Quantize output with no quant params")


def lstm(op: Op, ctx: Context) -> Verdict:
    """GC LSTM: full kernel (20 or 24 inputs, 1 output, SIGMOID/TANH) or basic kernel (3 runtime
    + 2 const inputs, 4 outputs, TANH, no cell/projection clipping)."""
    act = _opt(op, "fusedActivationFunction")
    if _opt(op, "kernelType") == 0:  # LSTMKernelType.FULL
        n = len(op.inputs)
        if n not in (20, 24):
            return reject(f"full LSTM needs 20 or 24 inputs, has {n}",
                          runtime_message=f"Expected 20 or 24 input tensors, but node has {n} input(s).")
        if len(op.outputs) != 1:
            return reject("full LSTM needs 1 output")
        if act not in (SIGMOID, TANH):
            return reject("only SIGMOID or TANH activation",
                          runtime_message=f"Only sigmoid or tanh activation is supported, but node has {act}")
        cell_state = op.input(19)  # lstm::full::kCellStateTensor
        if cell_state is not None and cell_state.shape and cell_state.shape[0] != 1:
            # common/lstm_parser.cc ParseLSTMAttributes (at Parse: the whole delegation fails)
            return reject(f"full LSTM with batch {cell_state.shape[0]}: batched execution is not supported", "parse",
                          "Batched execution is not supported for LSTM")
        return ACCEPT
    return first_failure(io_counts(3, outputs=4, const=2)(op, ctx), basic_lstm_params(op, ctx))


def basic_lstm_params(op: Op, ctx: Context) -> Verdict:
    """Basic LSTM kernel parameters (GC, and MB LSTMOperationParser::CheckBasicParameters)."""
    if _opt(op, "fusedActivationFunction") != TANH:
        return reject("basic LSTM supports only TANH activation", runtime_message="Only TANH activation is supported.")
    for field, name in (("cellClip", "cell_clip"), ("projClip", "proj_clip")):
        if _opt(op, field, 0.0) != 0.0:
            return reject(f"{name} is not supported", runtime_message=f"{name} is not supported.")
    return ACCEPT


def prelu_alpha(op: Op, ctx: Context) -> Verdict:
    """MB PReLUOperationParser::Parse: alpha must be constant, either a vector of the input's
    channel count or an HWC tensor equal to the input's H, W, C."""
    x, alpha = op.input(0), op.input(1)
    view = bhwc(x.shape) if x is not None else None
    if alpha is None or not ctx.is_const(alpha) or view is None:
        return reject("alpha must be a constant", "parse")
    s = ctx.source(alpha).shape
    if s and all(d == 1 for d in s[:-1]):
        if s[-1] == view[3]:
            return ACCEPT
        return reject(f"alpha has {s[-1]} values for {view[3]} channels", "parse",
                      "Linear alpha shape does not match the number of input channels.")
    hwc = s[-3:] if len(s) >= 3 else (1, *s)
    if len(s) > 4 or (len(s) == 4 and s[0] != 1) or tuple(hwc) != view[1:]:
        return reject(f"alpha shape {list(s)} does not match the input's H, W, C {list(view[1:])}", "parse",
                      "Alpha shape does not match input shape.")
    return ACCEPT


def batch_matmul_operands(op: Op, ctx: Context) -> Verdict:
    """MB BatchedMatMulOperationParser::Parse: 2 runtime inputs, or 1 runtime input with a 2-D
    constant second input; anything else fails at Parse."""
    n, second = len(runtime_inputs(op, ctx)), op.input(1)
    if n == 2 or (n == 1 and second is not None and ctx.is_const(second) and second.rank == 2):
        return ACCEPT
    return reject("needs 2 runtime inputs, or a runtime first input and a 2-D constant second input", "parse",
                  "Not supported batched mat mul case")


def no_const_weights(index: int, backend: str, what: str) -> Check:
    """A kernel on `backend` that needs constant weights at input `index` (GL convolutions:
    gl/kernels/conv.cc "Convolution does not support more than 1 runtime tensor")."""

    def check(op: Op, ctx: Context) -> Verdict:
        w = op.input(index)
        if ctx.options.backend != backend or w is None or ctx.is_const(w):
            return ACCEPT
        return reject(f"the {backend} {what} kernel needs constant weights", "backend",
                      "Convolution does not support more than 1 runtime tensor")

    return check


def runtime_depthwise_multiplier(op: Op, ctx: Context) -> Verdict:
    """L/SEL DEPTHWISE_CONVOLUTION (OpenCL and Metal): runtime weights only with depth_multiplier 1."""
    w = op.input(1)
    if ctx.options.backend == "gl" or w is None or ctx.is_const(w) or _opt(op, "depthMultiplier", 1) == 1:
        return ACCEPT
    return reject("depthwise convolution with runtime weights needs depth_multiplier 1", "backend")


def gl_mean_hw(op: Op, ctx: Context) -> Verdict:
    """gl/kernels/mean.cc: on OpenGL, MEAN only over H and W with a 1x1 output of the same C."""
    if ctx.options.backend != "gl":
        return ACCEPT
    x, y, axes = op.input(0), op.outputs[0], op.input(1)
    data = axes.data() if axes is not None else None
    xs, ys = bhwc(x.shape), bhwc(y.shape)
    if data is not None and xs is not None and x.rank == 4 and sorted(int(a) % 4 for a in data.ravel()) == [1, 2] \
            and ys is not None and ys[1:] == (1, 1, xs[3]):
        return ACCEPT
    return reject("the OpenGL MEAN kernel only averages over height and width to 1x1", "backend")


def gl_upsampling(op: Op, ctx: Context) -> Verdict:
    """gl/kernels/resize.cc: on OpenGL, RESIZE only upsamples."""
    if ctx.options.backend != "gl":
        return ACCEPT
    xs, ys = bhwc(op.input(0).shape), bhwc(op.outputs[0].shape)
    if xs is None or ys is None or (ys[1] >= xs[1] and ys[2] >= xs[2]):
        return ACCEPT
    return reject("the OpenGL RESIZE kernel cannot downsample", "backend")


def unavailable(reason: str, layer: Layer = "partition") -> Check:
    """An op this build routes to a parser that always refuses (e.g. the MediaPipe ops, whose open-
    source custom_parsers.cc returns Unimplemented(op name))."""

    def check(op: Op, ctx: Context) -> Verdict:
        return reject(reason, layer, op.name)

    return check


def _custom_ints(op: Op, count: int) -> tuple[int, ...] | None:
    """The first `count` int32 fields of a MediaPipe op's raw C-struct custom options (its
    custom_initial_data), None when the options are too short."""
    raw = op.custom_options
    if len(raw) < 4 * count:
        return None
    return struct.unpack_from(f"<{count}i", raw)


def custom_params(kind: str) -> Check:
    """GC CheckCustomOpsGpuDelegateCompatibility / pooling: the custom_initial_data struct must be
    present (TfLiteTransposeConvParams: padding, stride_w, stride_h; TfLitePoolParams: padding,
    stride_w, stride_h, filter_w, filter_h) and its strides (and kernel) positive."""
    count = 5 if kind == "pool" else 3

    def check(op: Op, ctx: Context) -> Verdict:
        fields = _custom_ints(op, count)
        if fields is None:
            return reject("custom options (the op's parameters) are missing",
                          runtime_message="Unable to retrieve custom_initial_data.")
        sw, sh = fields[1], fields[2]
        if kind == "pool" and (fields[3] <= 0 or fields[4] <= 0):
            return reject("kernel size must be positive",
                          runtime_message=f"Incorrect kernel values: kernel_height = {fields[4]}, "
                                          f"kernel_width = {fields[3]}")
        if sw <= 0 or sh <= 0:
            return reject("strides must be positive",
                          runtime_message=f"Incorrect stride values: stride_height = {sh}, stride_width = {sw}")
        return ACCEPT

    return check


def resampler_shapes(op: Op, ctx: Context) -> Verdict:
    """MB ResamplerOperationParser::Parse: source and warp have the same batch, warp C >= 2. A
    missing input is io_counts' verdict (every check runs, so this one must not assume two)."""
    if op.input(0) is None or op.input(1) is None:
        return ACCEPT
    src, warp = bhwc(op.input(0).shape), bhwc(op.input(1).shape)
    if src is None or warp is None:
        return ACCEPT
    if src[0] != warp[0]:
        return reject("source and warp batch differ", "parse", "src_shape.b != warp_shape.b")
    if warp[3] < 2:
        return reject("warp needs at least 2 channels", "parse", "warp_shape.c < 2")
    return ACCEPT


def exact_version(version: int) -> Check:
    """Gen-1/Gen-2 CheckExactSupportedOpVersion (LSTM): only this op version is parsed."""

    def check(op: Op, ctx: Context) -> Verdict:
        if op.version == version:
            return ACCEPT
        return reject(f"only version {version} is supported, this is version {op.version}",
                      runtime_message=f"Only version {version} is supported. Requested version {op.version}")

    return check


def depthwise_multiplier_on_single_channel(op: Op, ctx: Context) -> Verdict:
    """Gen-1 (2019) DepthwiseConvolutionOperationParser: a depth_multiplier other than 1 only when
    the input has one channel."""
    x = op.input(0)
    if _opt(op, "depthMultiplier", 1) == 1 or (x is not None and x.shape and x.shape[-1] == 1):
        return ACCEPT
    return reject("depth_multiplier != 1 is supported only for a single-channel input")


def paddings_4x2_no_batch(op: Op, ctx: Context) -> Verdict:
    """Gen-1 (2019) PadOperationParser: constant 4x2 paddings that leave the batch unpadded."""
    pads = op.input(1)
    data = pads.data() if pads is not None else None
    if data is None or data.shape != (4, 2):
        return reject("paddings must be a constant 4x2 tensor")
    if data[0].any():
        return reject("padding the batch dimension is not supported")
    return ACCEPT


def mean_over_hw(op: Op, ctx: Context) -> Verdict:
    """Gen-2 (2020) MeanOperationParser: only a mean over height and width of a 4-D input."""
    x, axes = op.input(0), op.input(1)
    data = axes.data() if axes is not None else None
    if x is not None and x.rank == 4 and data is not None and {int(a) % 4 for a in data.ravel()} <= {1, 2}:
        return ACCEPT
    return reject("only a mean over height and width is supported")
