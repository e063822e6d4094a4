"""litert-mldrift: LiteRT's next-generation GPU accelerator (ML Drift), as ai-edge-litert 2.3.0 ships it.

Sources: google-ai-edge/LiteRT @ f67457790c9c2ab67347d6fe53270e8d3df20868
ml_drift_delegate/tflite/model_builder.cc for the op set, and, for every entry, the real
accelerator: each fact marked "observed" was seen with ai-edge-litert 2.3.0
(WebGPU backend on lavapipe, /work/shared/oracle) on one-op and small multi-op models; the
comparison is recorded in docs/fidelity.md. Where the two disagree the observation wins.

What differs from the classic delegate (gpu-current), all observed:
- runtime INT32 and BOOL tensors are accepted by every op (INT64 is not), scalars too;
- numpy-style broadcasting for every binary op (kEnhancedBroadcast);
- identical inputs (SUB(x, x), DIV(x, x), MAXIMUM(x, x)) are refused at partitioning, not at Parse;
- comparison ops need no CAST/SELECT consumer; STRIDED_SLICE is capped at version 2;
- two constant operands are taken by the elementwise ops, and an op with no runtime input at all
  is refused in GC's words by most other ops or crashes the build (where an operand comes from
  decides: a constant behind DEQUANTIZE counts as a constant, a SHAPE-derived value as runtime);
- a dynamic tensor in any subgraph, a delegate failure, or a custom op the runtime does not
  register makes the whole model fail to compile (CompiledModel: "Failed to modify graph with
  delegate") instead of leaving it on the CPU;
- litert-torch's odml.rms_norm, odml.scaled_dot_product_attention and odml.group_norm composites
  crash the compilation (SIGSEGV): every LLM export as its convert scripts write it.
"""

import math
from dataclasses import replace

from gpucompat.ir import dtypes
from gpucompat.ir.opcodes import BUILTIN as B
from gpucompat.layout import bhwc
from gpucompat.rules.support import predicates as p
from gpucompat.rules.support.context import Context
from gpucompat.rules.support.profile import Check, OpSupport, Profile
from gpucompat.rules.support.profiles.gpu_current import MAX_POOL_ARGMAX, MAX_UNPOOLING, TRANSPOSE_CONV_BIAS
from gpucompat.rules.support.verdict import ACCEPT, Verdict, reject


def _restated(check: Check, message: str | None = None, layer: str = "partition") -> Check:
    """`check` with its rejection moved to `layer` and, when given, the runtime's own text
    (ML Drift runs several of the classic Parse-time checks at partitioning, with other words)."""

    def restated(op, ctx: Context) -> Verdict:
        v = check(op, ctx)
        if v.ok:
            return v
        return reject(v.reason, layer, message if message is not None else v.runtime_message)

    return restated


def _dequantize_input(op, ctx: Context) -> Verdict:
    """What DEQUANTIZE reads (ml_drift_delegate DequantizeOperationParser::IsSupported); observed
    on one-op models: a runtime input without quantization parameters is refused, "Dequantize
    for Densify is not supported", whatever writes it (a FLOAT16 model input, an fp16 ADD or
    CAST, a DENSIFY of sparse fp16 weights); a per-channel runtime input "Unsupported
    quantization scale size"; a constant of rank 1 "Unsupported dims for tensor: NAME Got
    dims:1". A runtime int8 or uint8 input with one scale (the output of a full-int8 model with
    float outputs) and an int8 constant of rank 2 to 4 are taken (some then fail to build:
    _dequantized_constant_layout)."""
    src = op.input(0)
    if src is None:
        return ACCEPT
    if ctx.is_const(src):
        if 2 <= src.rank <= 4:
            return ACCEPT
        return reject(f"the constant {src.name!r} has rank {src.rank}: only ranks 2 to 4 are read",
                      runtime_message=f"Unsupported dims for tensor: {src.name} Got dims:{src.rank}")
    if src.quantization is None:
        densified = src.producer is not None and src.producer.builtin == B["DENSIFY"]
        return reject("dequantizes the output of DENSIFY (sparse weights)" if densified else
                      f"the runtime input {src.name!r} ({src.dtype_name}) has no quantization parameters",
                      runtime_message="Dequantize for Densify is not supported")
    if src.is_per_channel:
        return reject(f"the runtime input {src.name!r} is quantized per channel",
                      runtime_message="Unsupported quantization scale size")
    return ACCEPT


def _int8_weights_flattening(op, ctx: Context) -> Verdict:
    """Int8-weight FULLY_CONNECTED (int8 constant weights, float or int8 input) flattening a
    rank-3 or rank-4 input of batch 1 into more than 16 rows (keep_num_dims false: a [1, T, C]
    input with T > 16, a [T, N] output): taken at partitioning, then its kernel cannot be created
    and the whole compile fails ("Unable to parse bc coord for BATCH axis"); observed on an
    ai-edge-quantizer transformer encoder and on one-op models with and without an activation or
    a consumer. Measured on 2.3.0 (tests/test_mldrift_build_failures.py): [1, T, C] builds for
    T <= 16 and fails for T >= 17 whatever C and the units; [1, H, W, C] alike by H * W ([1, 4, 4,
    C] builds, [1, 2, 9, C] and [1, 1, 17, C] fail); a first axis above 1 ([2, 40, C], [2, 1, 17,
    C]) builds, as do the same FC keeping its rank, at rank 2, or with float weights. This is the
    default (fp16) precision; with fp32 enforced the limit is 8 rows ([1, 9, C] fails), which the
    profile does not model. A full-int8 FULLY_CONNECTED (int8 input and weights) is bounded alike,
    measured on 2.3.0 with keep_num_dims both ways at both precisions: [1, T, C] builds for
    T <= 16 and fails for T >= 17, [1, H, W, C] by H * W ([1, 4, 4, C] builds, [1, 3, 6, C] and
    [1, 1, 17, C] fail), 8 rows with fp32 enforced; batch 2-4, rank 1-2 and keep_num_dims build.
    The flattening forms that build compute wrong values when more than one row comes from a
    batch-1 input (the numerics table: GPU005)."""
    x, w = op.input(0), op.input(1)
    if (x is not None and w is not None and x.dtype in _FLATTENED_INPUT and w.dtype == dtypes.INT8
            and ctx.is_const(w) and op.outputs and op.outputs[0].rank != x.rank and _flattening_fails(x.shape)):
        return reject(f"an int8-weight FULLY_CONNECTED flattening a rank-{x.rank} {_FLATTENED_INPUT[x.dtype]} input "
                      f"{list(x.shape)} into more than {FLATTENED_ROWS_BUILT} rows fails to build: the accelerator "
                      f"makes the rows a batch axis its kernel cannot write", "parse",
                      "Unable to parse bc coord for BATCH axis.")
    return ACCEPT


_FLATTENED_INPUT = {dtypes.FLOAT32: "float", dtypes.FLOAT16: "float", dtypes.INT8: "int8 (full-int8)"}
FLATTENED_ROWS_BUILT = 16  # the most rows of a batch-1 float or int8 input an int8-weight FULLY_CONNECTED flattens


def _flattening_fails(shape) -> bool:
    """The input shapes (float or int8) an int8-weight FULLY_CONNECTED cannot flatten on the accelerator:
    rank 3 or 4, batch 1, more than FLATTENED_ROWS_BUILT rows."""
    return len(shape) in (3, 4) and shape[0] == 1 and math.prod(shape[1:-1]) > FLATTENED_ROWS_BUILT


def _blockwise_weights(op, ctx: Context) -> Verdict:
    """Blockwise-quantized weights (INT4, ai-edge-quantizer's dynamic_wi4b32_afp32) crash the
    accelerator while it compiles the model (abort "munmap_chunk(): invalid pointer", "free():
    invalid next size", or SIGSEGV); observed on 4 litert-torch exports (zoo, docs/zoo.md)."""
    w = op.input(1)
    if w is not None and w.is_blockwise_quantized:
        return reject(f"weights {w.name!r} are blockwise quantized ({w.dtype_name}): the accelerator crashes compiling",
                      "parse", "the accelerator crashed while compiling the model")
    return ACCEPT


def _no_runtime_per_channel(op, ctx: Context) -> Verdict:
    """A non-constant per-channel quantized input (int8 weights read through DENSIFY in a sparse
    dynamic-range model) passes partitioning, then the kernel build aborts the process; observed:
    "model_builder_helper.cc:155] Check failed: params->scale->size == 1"."""
    for t in op.present_inputs:
        if t.is_per_channel and not ctx.is_const(t):
            return reject(f"input {t.name!r} is a per-channel quantized runtime tensor", "parse",
                          "Check failed: params->scale->size == 1")
    return ACCEPT


def _condition_batch_fits_output(op, ctx: Context) -> Verdict:
    """A SELECT_V2 whose condition the GPU lays out with a batch above 1 (gpucompat/layout.py:
    a rank-2 [A, B] condition is {A, 1, 1, B}, a rank-1 [N] one {N, 1, 1, 1}) while its output has
    batch 1 is taken at partitioning, and then the kernel cannot be built: the generated code has
    no batch coordinate to read the condition with, and the whole compile fails ("Unable to parse
    bc coord for BATCH axis", merge_nodes.cc). The causal mask of a litert-torch decoder
    (`masked_fill` with a constant BOOL [32, 32] against [1, 4, 32, 32]) is this form. Observed with
    ai-edge-litert 2.3.0, constant and runtime conditions alike: [32, 32], [16, 32], [4, 32] and
    [32] against [1, 4, H, W] fail; [1, 32], [1, 32, 32], [1, 1, 32, 32] against [1, 4, 32, 32] and
    [32, 32] against [4, 32, 32], [32, 32] or [2, 4, 32, 32] compile."""
    cond, out = op.input(0), (op.outputs or [None])[0]
    if cond is None or out is None:
        return ACCEPT
    cond_layout, out_layout = bhwc(cond.shape), bhwc(out.shape)
    if cond_layout is None or out_layout is None or out_layout[0] != 1 or cond_layout[0] <= 1:
        return ACCEPT
    return reject(f"the condition {cond.name!r} {list(cond.shape)} has batch {cond_layout[0]} on the GPU "
                  f"({{bhwc, {list(cond_layout)}}}) and the output {list(out.shape)} batch 1: the kernel cannot "
                  f"read it", "parse", "Unable to parse bc coord for BATCH axis")


def _runtime_lhs(op, ctx: Context) -> Verdict:
    """A constant left operand (a baked matrix times runtime values) is refused at partitioning;
    observed with ai-edge-litert 2.3.0 (constant [1,32,16] x runtime [1,16,64]): "Not supported
    batched mat mul case: non-constant tensor", the op stays on the CPU; with both operands
    constant ([1,4,8] x [8,3]): "Not supported batched mat mul case: too many inputs".
    edge-compat's measured matrix (gpu_mldrift, LiteRT 2.2.0, Galaxy S26 / Pixel 8a) records the
    whole compile failing instead on Android OpenCL."""
    lhs = op.input(0)
    if lhs is None or not ctx.is_const(lhs):
        return ACCEPT
    if ctx.is_const(op.input(1)):
        return reject("both operands are constants",
                      runtime_message="Not supported batched mat mul case: too many inputs")
    return reject(f"the left operand {lhs.name!r} is a constant (gpucompat fix: substitute-batch-matmul)",
                  runtime_message="Not supported batched mat mul case: non-constant tensor")


def _dequantized_constant_layout(op, ctx: Context) -> Verdict:
    """An int8 / uint8 constant of rank 2 or 3 whose first axis is above 1, read through DEQUANTIZE:
    the delegate lays the constant out as HWC ([A, B] as {1, 1, A, B}, [A, B, C] as {1, A, B, C})
    and the DEQUANTIZE output as any tensor ({A, 1, 1, B}, {A, 1, B, C}: gpucompat/layout.py), and
    the whole compile fails; observed with ai-edge-litert 2.3.0, "Shape mismatch: {bhwc, {10, 1, 1,
    8}} vs {bhwc, {1, 1, 10, 8}}", per tensor and per channel (axis 0 or 1), whatever reads it: the
    weights of FULLY_CONNECTED (a converter-written weight-only Dense(576); LiteRT issue 9523 on
    Android), a GATHER table, BATCH_MATMUL's right operand, ADD, TILE, an op left on the CPU, a model
    output. A first axis of 1 ([1, 8], [1, 10, 8], FULLY_CONNECTED of 1 unit), rank 4 ([3, 2, 1, 8],
    [2, 3, 10, 8]) and fp16 constants compile."""
    src, out = op.input(0), (op.outputs or [None])[0]
    if (src is None or out is None or src.quantization is None or not ctx.is_const(src) or src.rank not in (2, 3)
            or src.shape[0] == 1):
        return ACCEPT
    weights = any(c.builtin == B["FULLY_CONNECTED"] and c.input(1) is out for c in out.consumers)
    what = ("int8 weights of a FULLY_CONNECTED (gpucompat fix: fold-quantized-weights)" if weights else
            f"the {src.dtype_name} constant {src.name!r} {list(src.shape)}")
    views = (bhwc(src.shape), (1,) * (4 - src.rank) + tuple(src.shape))  # the output's shape may be left unset
    return reject(f"dequantizes {what}: the GPU lays the constant out as {{bhwc, {list(views[1])}}} and its "
                  f"output as {{bhwc, {list(views[0])}}}", "parse",
                  "Shape mismatch: " + " vs ".join(f"{{bhwc, {{{', '.join(map(str, v))}}}}}" for v in views))


def _unclamped_slice(op, ctx: Context) -> Verdict:
    """STRIDED_SLICE reads begin and end literally (a negative index counts from the end once, a
    mask takes the whole axis) and does not clamp them to the axis: a slice whose bounds lie
    outside the tensor, which the CPU kernel clamps, no longer matches its output shape; observed
    "Output shape mismatch" for begin -99 / end 99 on a 5x7 input."""
    x, out = op.input(0), (op.outputs or [None])[0]
    begin, end, strides = (op.input(i) for i in (1, 2, 3))
    if x is None or out is None or not all(t is not None and ctx.is_const(t) for t in (begin, end, strides)):
        return ACCEPT
    values = [ctx.source(t).data() for t in (begin, end, strides)]
    if any(v is None for v in values):  # a buffer of the wrong size: other checks speak of it
        return ACCEPT
    b, e, st = (v.astype(int).ravel() for v in values)
    begin_mask, end_mask = int(getattr(op.options, "beginMask", 0) or 0), int(getattr(op.options, "endMask", 0) or 0)
    if not len(x.shape) == len(out.shape) == len(b) == len(e) == len(st) or (st <= 0).any():
        return ACCEPT
    for axis, dim in enumerate(x.shape):
        start = 0 if begin_mask >> axis & 1 else b[axis] + (dim if b[axis] < 0 else 0)
        stop = dim if end_mask >> axis & 1 else e[axis] + (dim if e[axis] < 0 else 0)
        if -(-(stop - start) // st[axis]) != out.shape[axis]:
            return reject(f"axis {axis}: the slice [{start}, {stop}) is not clamped to the input's {dim} and does not "
                          f"give the output's {out.shape[axis]}", runtime_message="Output shape mismatch")
    return ACCEPT


def _lookup_table_read(op, ctx: Context) -> Verdict:
    """EMBEDDING_LOOKUP reads its table as float32 or as quantized values: an fp16 table behind
    DEQUANTIZE (fp16-weight models; the delegate reads the FLOAT16 constant) is refused at
    partitioning, observed "EMBEDDING_LOOKUP: Empty quantization params." for rank-2 and rank-3
    tables and constant ids alike; a float32 table and an int8 one with its scale are taken. A
    runtime table passes partitioning and the accelerator crashes building it (SIGSEGV, observed
    with a [10, 4] float32 table)."""
    table = op.input(1)
    if table is None:
        return ACCEPT
    if not ctx.is_const(table):
        return reject(f"the table {table.name!r} is a runtime tensor: the accelerator crashes building the lookup",
                      "parse", "the accelerator crashed while compiling the model")
    read = ctx.source(table)
    if read.dtype != dtypes.FLOAT32 and read.quantization is None:
        return reject(f"the table {read.name!r} is {read.dtype_name} without quantization parameters (fp16 weights "
                      f"behind DEQUANTIZE)", runtime_message="EMBEDDING_LOOKUP: Empty quantization params.")
    return ACCEPT


def _lookup_table_rank_2(op, ctx: Context) -> Verdict:
    """EMBEDDING_LOOKUP is taken with a rank-2 table (observed, and computed right: the numerics
    calibration grid); with a rank-3 table it passes partitioning and the model builder aborts
    the process: "model_builder_helper.cc:329] Check failed: dims->size == 2 (3 vs. 2)"."""
    table = op.input(1)
    if table is None or table.rank == 2:
        return ACCEPT
    return reject(f"the table has rank {table.rank}, not 2", "parse", "Check failed: dims->size == 2")


def _one_hot_last_axis(op, ctx: Context) -> Verdict:
    """ONE_HOT only along the last output axis; observed: axis 0 on [1, 4] indices is refused
    with "OneHot axis must be -1 or the last dimension." (tests/models_ops.py ops_one_hot_axis0),
    axis -1 is taken (md_one_hot)."""
    axis = p._opt(op, "axis", -1)
    out = op.outputs[0] if op.outputs else None
    if axis == -1 or (out is not None and axis == len(out.shape) - 1):
        return ACCEPT
    return reject(f"axis {axis} is not the last output axis",
                  runtime_message="OneHot axis must be -1 or the last dimension.")


def entry(max_version: int | None = None, *checks: Check, quant_only: bool = False) -> OpSupport:
    """An op entry; `max_version` only where a cap was observed below the CPU runtime's own
    highest registered version (no cap seen otherwise)."""
    return OpSupport(max_version, checks, quant_only=quant_only)


# observed: ADD(x, x) and MUL(x, x) are taken; SUB/DIV/MAXIMUM(x, x) go to the CPU with the
# classic Parse message (ML Drift moved the check into IsSupported, ml_drift_delegate/tflite/model_builder.cc).
_IDENTICAL = _restated(p.identical_inputs)
# observed: SIGN_BIT on ADD prints "Unsupported fused activation: 5", on SUB and CONV_2D the enum name.
_ACT_ADD = _restated(p.fused_activation(), "Unsupported fused activation: 5")
_ACT = _restated(p.fused_activation(), "TfLiteFusedActivation.kTfLiteActSignBit")


# observed: a constant where these ops read a runtime value (the ids of EMBEDDING_LOOKUP, the
# indices of ONE_HOT, the data of CUMSUM, UNPACK and SPLIT, the input of PRELU with a constant
# alpha) passes partitioning and then aborts the process building the model: "object_reader.cc:373]
# Check failed: CanReadValue(node_input_index)"
_CANNOT_READ = "Check failed: CanReadValue(node_input_index)"
# observed: DEPTHWISE_CONV_2D and TRANSPOSE_CONV with a constant input and runtime weights, PRELU
# with a runtime alpha
_NO_DATA = "src has no data."


def _prelu_alpha(op, ctx: Context) -> Verdict:
    """The alpha shapes PRELU takes, observed on input ranks 1-4 with every alpha of 1s and the
    input's sizes, float32 and fp16 (behind DEQUANTIZE) alike, all refused at partitioning: an
    alpha of 1s but its last axis must hold the input's C on the GPU (gpucompat/layout.py: 1 for a
    rank-1 input), "Linear alpha shape does not match the number of input channels."; any other
    must be HWC or 1xHWC ([3, 8], a scalar: "Expected a 3D tensor of shape HxWxC or a 4D tensor of
    shape 1xHxWxC but got [3,8]"; [2, H, W, C]: "Batch size is not equal to 1.") and equal the
    input's H, W, C ("Alpha shape does not match input shape."). One that does, with an input of
    batch above 1 ([2, 3, 8] by [1, 3, 8]), passes and the whole compile fails: "Unable to parse
    bc coord for BATCH axis."."""
    x, alpha = op.input(0), op.input(1)
    view = bhwc(x.shape) if x is not None else None
    if view is None or alpha is None:
        return ACCEPT
    s = tuple(ctx.source(alpha).shape)
    if s and all(d == 1 for d in s[:-1]):
        if s[-1] == view[3]:
            return ACCEPT
        return reject(f"alpha has {s[-1]} values for {view[3]} channels",
                      runtime_message="Linear alpha shape does not match the number of input channels.")
    if len(s) not in (3, 4):
        return reject(f"alpha {list(s)} is neither linear nor HWC",
                      runtime_message="Expected a 3D tensor of shape HxWxC or a 4D tensor of shape 1xHxWxC but got "
                                      f"[{','.join(map(str, s))}]")
    if len(s) == 4 and s[0] != 1:
        return reject(f"alpha {list(s)} has batch {s[0]}", runtime_message="Batch size is not equal to 1.")
    if s[-3:] != view[1:]:
        return reject(f"alpha {list(s)} does not match the input's H, W, C {list(view[1:])}",
                      runtime_message="Alpha shape does not match input shape.")
    if view[0] > 1:
        return reject(f"an HWC alpha with an input of batch {view[0]}: the kernel cannot read the alpha", "parse",
                      "Unable to parse bc coord for BATCH axis.")
    return ACCEPT


# ML Drift's names of the elementwise operations, in its messages (observed); the others are the
# op's name in lower case
_ELEMENTWISE_NAMES = {B["SUB"]: "subtract", B["SQUARED_DIFFERENCE"]: "squared_diff"}


def _constants_of_one_type(op, ctx: Context) -> Verdict:
    """Two constant operands are taken (observed: every two-operand elementwise op and comparison
    with two float32 constants; ADD, MUL and GREATER_EQUAL with two fp16 ones behind DEQUANTIZE;
    ADD with two INT32 ones) unless their types differ as the delegate reads them: an fp16
    constant behind DEQUANTIZE with a float32 one is refused at partitioning, observed on 13 op
    types: "add: constant inputs have different types: FLOAT16 vs FLOAT32" (in input order;
    "subtract", "squared_diff", "floor_div", "greater_equal", ...)."""
    a, b = op.input(0), op.input(1)
    if a is None or b is None or not (ctx.is_const(a) and ctx.is_const(b)):
        return ACCEPT
    ta, tb = ctx.source(a).dtype_name, ctx.source(b).dtype_name
    if ta == tb:
        return ACCEPT
    name = _ELEMENTWISE_NAMES.get(op.builtin, op.name.lower())
    return reject(f"the constant operands are {ta} and {tb} as the GPU reads them",
                  runtime_message=f"{name}: constant inputs have different types: {ta} vs {tb}")


def _no_runtime_scalar_with_tensor(op, ctx: Context) -> Verdict:
    """observed (numerics calibration grid, docs/fidelity.md): a runtime rank-0 operand with a
    runtime operand of higher rank is refused at partitioning; with a constant, or with another
    rank-0 runtime operand, it is taken."""
    runtime = p.runtime_inputs(op, ctx)
    if len(runtime) == 2 and min(t.rank for t in runtime) == 0 and max(t.rank for t in runtime) > 0:
        scalar = next(t for t in runtime if t.rank == 0)
        return reject("a runtime rank-0 operand with a runtime tensor of higher rank", "partition",
                      f'Tensor "{scalar.name}" has bad input dims size: 0.')
    return ACCEPT


# observed: every op refuses a node without a runtime input (each in its GC words, below) except
# the two-operand elementwise ops, comparisons, logical ops, SELECT, SELECT_V2, CONCATENATION,
# PACK and STRIDED_SLICE, which take constants only. A constant behind DEQUANTIZE (fp16 weights)
# counts as a constant (Context.is_const). One runtime input: "Expected 1 runtime input
# tensor(s), but node has 0 runtime input(s)." (RESIZE_BILINEAR also with a size computed from
# SHAPE: "... has 2 runtime input(s)."); reductions and REVERSE_V2, with their constant axes:
# "Expected 1 const input tensor(s), but node has 2 const input(s)."
_ONE_RUNTIME = p.io_counts(1)
_CONST_AXES = p.io_counts(1, const=1)
_OPERANDS = p.operands(constants=True)
_TWO_ARG = entry(None, _OPERANDS, _constants_of_one_type, _ACT, _IDENTICAL, _no_runtime_scalar_with_tensor)
_ONE_ARG = entry(None, p.io_counts(1, const=0))  # observed: "Expected 0 const input tensor(s), ..."
_ONE_ARG_V2 = entry(2, p.io_counts(1, const=0))  # observed cap 2
_COMPARISON = entry(None, _constants_of_one_type)
# observed: with no runtime input, "Expected 1 or 2 input tensor(s), but node has 0 runtime inputs.";
# with a constant input and runtime weights, CONV_2D "input must be a runtime tensor", the others _NO_DATA
_CONV_INPUTS = p.conv_runtime_inputs

OPS: dict[int, OpSupport] = {
    # elementwise, one argument (observed accepted; caps observed for RSQRT/TANH/LOGISTIC/RELU*)
    **{B[n]: _ONE_ARG for n in ("ABS", "CEIL", "COS", "EXP", "FLOOR", "LOG", "NEG", "ROUND", "SIN", "SQRT",
                                "SQUARE", "ELU", "GELU", "SIGN", "LOGICAL_NOT")},
    **{B[n]: _ONE_ARG_V2 for n in ("RSQRT", "TANH", "LOGISTIC")},
    **{B[n]: entry(None, _ONE_RUNTIME) for n in ("HARD_SWISH", "LEAKY_RELU", "RELU_N1_TO_1")},
    B["RELU"]: entry(2, _ONE_RUNTIME), B["RELU6"]: entry(2, _ONE_RUNTIME),
    # elementwise, two arguments, numpy broadcasting (observed [2,1,3]*[1,4,1], [2,4,4,8]-[1,4,1,8])
    B["ADD"]: entry(None, _OPERANDS, _constants_of_one_type, _ACT_ADD, _no_runtime_scalar_with_tensor),
    B["MUL"]: entry(None, _OPERANDS, _constants_of_one_type, _ACT, _no_runtime_scalar_with_tensor),
    B["SUB"]: entry(2, *_TWO_ARG.checks),
    **{B[n]: _TWO_ARG for n in ("DIV", "POW", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "FLOOR_DIV",
                                "FLOOR_MOD", "ATAN2")},
    # comparisons and logic: no consumer rule (observed: EQUAL as a graph output, GREATER into IF)
    B["EQUAL"]: entry(2, _constants_of_one_type),
    **{B[n]: _COMPARISON for n in ("NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")},
    **{B[n]: entry() for n in ("LOGICAL_AND", "LOGICAL_OR", "SELECT")},
    B["CAST"]: entry(None, _ONE_RUNTIME),
    B["SELECT_V2"]: entry(None, _condition_batch_fits_output),
    # convolution family (observed caps 6/6/3)
    B["CONV_2D"]: entry(6, _CONV_INPUTS, p.runtime_input(0, "the input", "input must be a runtime tensor"), _ACT),
    B["DEPTHWISE_CONV_2D"]: entry(6, _CONV_INPUTS, p.runtime_input(0, "the input", _NO_DATA), _ACT),
    B["TRANSPOSE_CONV"]: entry(3, _CONV_INPUTS, p.runtime_input(2, "the input", _NO_DATA)),
    # observed: a constant input (float32 or fp16 behind DEQUANTIZE, runtime or constant weights) is
    # refused, "FullyConnected doesn't support constant input." (GC)
    B["FULLY_CONNECTED"]: entry(None, p.runtime_input(0, "the input", "FullyConnected doesn't support constant input."),
                                _ACT, _no_runtime_per_channel, _int8_weights_flattening, _blockwise_weights),
    # observed: a Keras PReLU with a constant per-channel alpha is taken (tests/models_ops.py ops_prelu)
    B["PRELU"]: entry(None, p.const_input(1, "alpha", message=_NO_DATA),
                      p.runtime_input(0, "the input", _CANNOT_READ, "parse"), _prelu_alpha),
    B["BATCH_MATMUL"]: entry(None, _runtime_lhs),
    B["AVERAGE_POOL_2D"]: entry(2, _ONE_RUNTIME), B["MAX_POOL_2D"]: entry(2, _ONE_RUNTIME),
    # reductions (observed any axes, REDUCE_ANY on BOOL, ARG_MAX with INT32 output, TOPK_V2 cap 1)
    **{B[n]: entry(None, _CONST_AXES) for n in ("MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD",
                                                "REDUCE_ANY", "REDUCE_ALL")},
    B["ARG_MAX"]: entry(None, _ONE_RUNTIME),
    # observed: an fp16 constant input behind DEQUANTIZE is refused, a float32 one aborts the build
    B["CUMSUM"]: entry(None, p.read_as_output_type(0, "Input/output must be float type and indices must be "
                                                      "constant int32 type"),
                       p.runtime_input(0, "the input", _CANNOT_READ, "parse")),
    B["TOPK_V2"]: entry(1, p.io_counts(1, outputs=None)),
    B["EMBEDDING_LOOKUP"]: entry(None, p.runtime_input(0, "the ids", _CANNOT_READ, "parse"), _lookup_table_read,
                                 _lookup_table_rank_2),
    # layout (observed)
    B["CONCATENATION"]: entry(6),
    B["PACK"]: entry(),
    B["UNPACK"]: entry(None, p.runtime_input(0, "the input", _CANNOT_READ, "parse")),
    B["SPLIT"]: entry(None, p.runtime_input(1, "the input", _CANNOT_READ, "parse")),
    B["SPLIT_V"]: entry(None, p.io_counts(1, outputs=None)),
    # observed: a constant input is refused, also with a runtime begin
    B["SLICE"]: entry(None, p.runtime_input(0, "the input", "Constant input is not supported.")),
    # observed (the KV-cache update of litert-torch's exports; float32 and int32, ranks 1-4): taken
    # with runtime start indices, refused with constant ones; a constant update aborts the build
    B["DYNAMIC_UPDATE_SLICE"]: entry(1, p.runtime_input(2, "the start indices",
                                                         "start_indices must be a runtime tensor"),
                                     p.runtime_input(1, "the update", _CANNOT_READ, "parse")),
    B["REVERSE_V2"]: entry(None, _CONST_AXES),
    **{B[n]: entry(None, _ONE_RUNTIME) for n in ("TILE", "SPACE_TO_DEPTH", "TRANSPOSE")},
    B["ONE_HOT"]: entry(None, p.runtime_input(0, "the indices", _CANNOT_READ, "parse"), _one_hot_last_axis),
    B["RESHAPE"]: entry(None, _ONE_RUNTIME),  # observed: a runtime shape input is refused
    # observed: paddings of a 1-D or 2-D tensor (1x2, 2x2) are refused as for the classic delegate
    B["PAD"]: entry(5, _ONE_RUNTIME, p.paddings_shape), B["PADV2"]: entry(5, _ONE_RUNTIME, p.paddings_shape),
    B["MIRROR_PAD"]: entry(None, _ONE_RUNTIME, p.mirror_pad_reflect, p.paddings_shape),
    B["STRIDED_SLICE"]: entry(2, p.strided_slice_masks, _restated(p.positive_slice_strides), _unclamped_slice),
    # observed: a GATHER of an fp16 table behind DEQUANTIZE (ranks 1-4, runtime ids) is refused and its
    # DEQUANTIZE stays on the CPU with it; a FLOAT16 table into a FLOAT16 output is taken
    B["GATHER"]: entry(None, p.gather, p.read_as_output_type(0, "Input / output dtype mismatch.")),
    # observed: both align_corners and half_pixel_centers make the CPU kernel's Prepare
    # (kernels/resize_bilinear.cc) refuse the node, "If half_pixel_centers is True, align_corners
    # must be False." / "Node number 0 (RESIZE_BILINEAR) failed to prepare.", and the whole model
    # fails to compile although the GPU would take the op
    B["RESIZE_BILINEAR"]: entry(3, _ONE_RUNTIME, _restated(p.resize_flags, layer="parse")),
    B["RESIZE_NEAREST_NEIGHBOR"]: entry(3, _ONE_RUNTIME),
    B["DEPTH_TO_SPACE"]: entry(None, _ONE_RUNTIME, p.block_size_above_one),
    B["SOFTMAX"]: entry(None, _ONE_RUNTIME, p.softmax_beta_one),
    # observed: the basic kernel (5 inputs, 4 outputs) is taken at 3, 4 and 9 units, batch 1 and 2,
    # and computes wrong values unless units % 4 == 0 (lint PREC402). Full-kernel models never get
    # here: their state tensors are variables, which the model loader refuses.
    B["LSTM"]: entry(None, p.lstm),
    # quantization (observed: int8 models with QUANTIZE/DEQUANTIZE fully delegated; a runtime INT16
    # input "Unsupported dequantization type." as GC words it)
    B["QUANTIZE"]: entry(None, _ONE_RUNTIME, quant_only=True),
    B["DEQUANTIZE"]: entry(None, p.dequantize_input, _dequantize_input, _dequantized_constant_layout,
                           quant_only=True),
}
# Not here, observed "Operation is not supported.": ARG_MIN, BROADCAST_TO, BATCH_TO_SPACE_ND,
# SPACE_TO_BATCH_ND, DENSIFY, FILL, GATHER_ND, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION,
# LOG_SOFTMAX, SHAPE, WHILE, IF.

# Custom ops the LiteRT runtime registers (observed: a model with any other custom op fails to
# load, "Encountered unresolved custom op"). The GPU takes MediaPipe's three (written as MediaPipe
# writes them, the parameters in custom_options) with the classic parsers' checks.
# litert-torch's composites (STABLEHLO_COMPOSITE names) that crash the compilation: observed on 42
# litert-torch 0.10.0 decoder exports (14 architectures; fp32, dynamic int8, fp16 weights), SIGSEGV
# building the GPU kernel right after subgraph 0 is partitioned (exported without composites,
# enable_hlfb=False, they compile), and on a one-composite model per name (tests/test_composites.py):
# these three crash, other names (odml.layer_norm, odml.upsample_bilinear2d, any other) compile, the
# composite left on the CPU and its decomposition delegated.
CRASHING_COMPOSITES = frozenset({"odml.rms_norm", "odml.scaled_dot_product_attention", "odml.group_norm"})

REGISTERED_CUSTOM_OPS = frozenset({
    "Convolution2DTransposeBias", "MaxPoolingWithArgmax2D", "MaxUnpooling2D", "Resampler",
    "TFLite_Detection_PostProcess", "Mfcc", "AudioSpectrogram"})

CUSTOM_OPS: dict[str, OpSupport] = {
    # observed on the op as MediaPipe writes it (input, weights, bias; TfLiteTransposeConvParams in
    # custom_options): taken; the classic parser's checks and messages, "Unable to retrieve
    # custom_initial_data.", "Incorrect stride values: ...", "Requested index goes beyond array size: 1 vs 1"
    "Convolution2DTransposeBias": TRANSPOSE_CONV_BIAS,
    # observed: MaxPoolingWithArgmax2D -> MaxUnpooling2D (TfLitePoolParams in custom_options) taken
    # whole; relabelled one-input ops without parameters are refused
    "MaxPoolingWithArgmax2D": MAX_POOL_ARGMAX,
    "MaxUnpooling2D": replace(MAX_UNPOOLING, backends=None),  # the classic OpenGL gap is not ML Drift's
    # observed: taken with its data and warp inputs; relabelled with one input:
    # "CUSTOM Resampler: Expected 2 runtime input tensor(s), but node has 1 runtime input(s)."
    "Resampler": entry(None, p.io_counts(2)),
}

PROFILE = Profile(
    name="litert-mldrift",
    title="LiteRT GPU accelerator (ML Drift)",
    description="LiteRT's next-generation GPU accelerator (ML Drift) as shipped in ai-edge-litert 2.3.0.",
    ops=OPS,
    custom_ops=CUSTOM_OPS,
    runtime_types=frozenset({dtypes.FLOAT32, dtypes.FLOAT16, dtypes.INT32, dtypes.BOOL}),
    quant_types=frozenset({dtypes.INT8, dtypes.UINT8}),
    max_rank=4,
    backends=("cl", "gl", "metal", "webgpu"),
    whole_model_failure=True,
    registered_custom_ops=REGISTERED_CUSTOM_OPS,
    loads_variable_tensors=False,  # model_load.cc UnpackTensor; observed with full-kernel LSTM models
    crashes_on_empty_tensors=True,  # observed: a VALID CONV_2D whose output is 0 wide (SIGFPE)
    crashing_composites=CRASHING_COMPOSITES,
    rank_message="Tensor dimensions must be less than {limit}. {name}",
    type_message="Tensor type({type}) is not supported. {name}",
    sources=("google-ai-edge/LiteRT@f67457790c9c2ab67347d6fe53270e8d3df20868 "
             "ml_drift_delegate/tflite/model_builder.cc",
             "observed with ai-edge-litert 2.3.0 (docs/fidelity.md)"),
    release="2.3.0",
)
