"""PREC family: where the numbers the GPU computes differ from the CPU's.

PREC403-405 judge the value ranges `check --inputs` observed (gpucompat/value_ranges.py) against
fp16's range; without inputs, PREC406-407 flag the patterns that leave it (gpucompat/fp16_patterns.py)."""

from __future__ import annotations

from gpucompat import fp16_patterns
from gpucompat.ir import dtypes
from gpucompat.rules.lint import Finding, Rule

FP16_MAX = 65504.0  # the largest finite half
FP16_TINY = 2.0 ** -24  # the smallest half subnormal (5.96e-8): half of it and below round to 0

QUANTIZED_NAMES = (dtypes.name(dtypes.INT8), dtypes.name(dtypes.UINT8))

FLOAT_DOC = """\
## What it finds
Quantized (int8 / uint8) ops that the delegate takes.

## Why it matters on the GPU
The GPU delegate has no integer kernels: it dequantizes constant weights once at initialisation,
gives every runtime int8/uint8 tensor a float shadow, and inserts a QUANTIZE_AND_DEQUANTIZE step
after every op whose output was fixed point, so the results follow the quantized model only
approximately, and with FP16 precision (the Java and benchmark_model default) less so. The
quantized model's memory saving does not carry over to the GPU.

## Example
A full-integer CONV_2D with int8 input: run in float with a re-quantization step after it.

## How to fix
Nothing to fix when the float emulation is intended; for GPU builds, the float (or fp16-weight)
model is the natural source. Check the numbers with `gpucompat verify`.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/model_builder_helper.cc (CreateVectorCopyData, DequantizeConstantTensor);
common/object_reader.cc ReadNonConstantTensor; common/transformations/add_quant_adjustments.h.
"""


def _quantized_on_gpu(result, analyses) -> list[Finding]:
    cp = analyses.channel_padding
    gpu_nodes = {(o.subgraph, o.index) for o in result.ops if o.placement == "gpu"}
    quant_tensors = [t for t in cp.tensors if t.dtype in QUANTIZED_NAMES]
    if not quant_tensors or not gpu_nodes:
        return []
    return [Finding("PREC401", "info",
                    f"{len(quant_tensors)} quantized tensor(s) on the GPU run as float emulation "
                    f"(dequantized weights, float shadows, a re-quantization step after each op)")]


LSTM_DOC = """\
## What it finds
A basic-kernel LSTM (kernel_type BASIC: 5 inputs, 4 outputs) that the delegate takes, with a
number of units that is not a multiple of 4.

## Why it matters on the GPU
The op runs, and computes wrong values. Its GPU task reads gate k of the [B, 4 x units]
activations at slice `k x ceil(units / 4)` of the 4-channel layout, which is where the gate
starts only when units % 4 == 0; otherwise every gate but the first mixes channels of its
neighbours. Observed on LiteRT's GPU accelerator (ai-edge-litert 2.3.0): `activ` and `state`
differ from the CPU by the size of the values themselves at 3 and 9 units, and agree at 4.

## Example
A basic LSTM with 9 units: the new state's error is as large as the state.

## How to fix
Pad the cell to a multiple of 4 units (zero weights and biases for the extra units leave the real
units' values unchanged), or keep the op off the GPU. Check with `gpucompat verify MODEL --runner
litert-gpu`.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/tasks/lstm.cc (gate slices); common/lstm_parser.cc ParseBasic;
tflite/kernels/lstm.cc (the basic kernel's 4 x units activations).
"""

LSTM_BASIC = 1  # LSTMKernelType.BASIC (schema)


def _lstm_units_off_slices(result, analyses) -> list[Finding]:
    out = []
    for g in analyses.model.graphs:
        gi = g.index  # a search of the model's graphs: asked once, not per op
        for o in (o for o in result.ops if o.subgraph == gi and o.placement == "gpu" and o.op == "LSTM"):
            op = g.ops[o.index]
            if getattr(op.options, "kernelType", None) != LSTM_BASIC or len(op.outputs) < 2:
                continue
            units = op.outputs[1].shape[-1] if op.outputs[1].shape else 0
            if units % 4:
                out.append(Finding("PREC402", "error",
                                   f"subgraph {g.index} op#{o.index} LSTM (basic kernel) has {units} units, not a "
                                   f"multiple of 4: the GPU reads its gates from the wrong channels",
                                   ((g.index, o.index),)))
    return out


OVERFLOW_DOC = """\
## What it finds
GPU-placed ops whose output, on the inputs given to `gpucompat check --inputs data.npz`, goes past
65504, the largest fp16 value: squares and sums of squares (SQUARED_DIFFERENCE, MUL(x, x), the
variance of a LayerNorm), EXP of logits above 11.09, or any value that large. The finding names
the op where the overflow starts, the value it reached, and how many ops after it read it.

## Why it matters on the GPU
At fp16 (the default of the Java GpuDelegate, benchmark_model and LiteRT's CompiledModel) every
tensor is stored as half: the value becomes inf, and inf - inf, 0 x inf give NaN. The model runs
with no error. A LayerNorm whose rows reach |x - mean| ~ 256 has a variance of inf, an RSQRT of 0,
and outputs its beta: LiteRT's GPU accelerator (lavapipe) and `gpucompat verify --precision fp16`
both give correlation 0.06 with the reference on rows of |x| ~ 1000 (docs/precision.md).

## Example
`op#2 SQUARED_DIFFERENCE 'moments/SquaredDifference' reaches 1.38e+07 (> 65504)`: a
keras.layers.LayerNormalization fed rows of |x| ~ 1000.

## How to fix
For the converter's LayerNorm: `gpucompat fix MODEL --rewrite fp16-safe-layernorm` computes it in a
scaled domain (S = max(max|x| / 8, 1) per row). For EXP: subtract the row's max first (the SOFTMAX
op does). Otherwise scale the values down before the op, or run the model at fp32 precision.
Check with `gpucompat verify MODEL --precision fp16 --inputs data.npz`.

## Fix safety
fp16-safe-layernorm: equivalent (the same value in fp32 up to rounding).

## References
IEEE 754 binary16; tflite/delegates/gpu/common/precision.h; research notes §5.6 (default
precision per entry point); docs/precision.md (the measurements).
"""

ACCUMULATION_DOC = """\
## What it finds
GPU-placed SUM / MEAN ops whose partial sums, on the inputs given to `check --inputs`, can go past
65504 although the result stays within fp16: the sum of |x| over the reduced axes is that large.

## Why it matters on the GPU
A reduction that accumulates in half (F16 calculation precision) overflows to inf midway; one
that accumulates in float (F32_F16, as the executor does) and stores the result as half is right.
Which one a device uses depends on the GPU and the delegate's precision mode.

## Example
MEAN over 768 channels of values around 100: partial sums reach 76800.

## How to fix
Scale the values down before the reduction, or reduce in chunks; or run at fp32 precision.

## Fix safety
Not applicable.

## References
tflite/delegates/gpu/common/precision.h (F16 vs F32_F16); tasks/reduce.cc.
"""

UNDERFLOW_DOC = """\
## What it finds
GPU-placed ops whose output, on the inputs given to `check --inputs`, is nonzero but never above
6e-8 in magnitude: every value rounds to 0 in fp16.

## Why it matters on the GPU
The smallest fp16 value is 5.96e-8 (a subnormal); anything below half of it is stored as 0, and
devices that flush subnormals lose everything below 6.1e-5. A tensor that is all zeros at fp16
turns a later DIV into inf, a LOG into -inf, and a normalisation into NaN.

## Example
A variance of values around 1e-5: 1e-10 in fp32, 0 in fp16.

## How to fix
Scale the values up before the op (and back after), or run at fp32 precision.

## Fix safety
Not applicable.

## References
IEEE 754 binary16 (subnormals); tflite/delegates/gpu/common/precision.h.
"""

VARIANCE_DOC = """\
## What it finds
Without inputs: GPU-placed MEAN / SUM ops over squares of unscaled values (SQUARED_DIFFERENCE,
SQUARE, MUL(x, x)): the variance of a LayerNorm as TensorFlow's converter writes it (MEAN ->
SQUARED_DIFFERENCE -> MEAN -> RSQRT), or any sum of squares. Whether the values get large enough
is for data to confirm: `gpucompat check MODEL --inputs data.npz` (PREC403).

## Why it matters on the GPU
At fp16 the squares pass 65504 once |x - mean| reaches 256: the variance becomes inf and the
normalised output its beta (PREC403). Rows that large are common in transformers' residual streams.

## Example
`op#3 MEAN averages the squares of op#2 SQUARED_DIFFERENCE (LayerNorm over 'x')`.

## How to fix
`gpucompat fix MODEL --rewrite fp16-safe-layernorm` rewrites the converter's LayerNorm into the scaled
form (S = max(max|x| / 8, 1) per row, xs = x / S, the variance of xs, eps / S^2), equivalent in
fp32 and right at fp16. Other sums of squares: scale first.

## Fix safety
equivalent.

## References
docs/precision.md; IEEE 754 binary16.
"""

EXP_DOC = """\
## What it finds
Without inputs: GPU-placed EXP ops whose input is not x - max(x) (softmax written out, or softmax_1
with its extra 1). Data would confirm it: `gpucompat check MODEL --inputs data.npz` (PREC403).

## Why it matters on the GPU
exp(x) passes 65504 at x = 11.09: at fp16 the sum becomes inf and the quotient 0 or NaN. The
SOFTMAX op itself subtracts the row's max on the GPU (LiteRT's accelerator is right at fp16 with
logits of 60), so only the written-out forms are at risk.

## Example
`EXP -> SUM -> ADD(1) -> DIV` on attention logits of 20: NaN rows at fp16 on LiteRT's accelerator.

## How to fix
Subtract the row's REDUCE_MAX before the EXP (exact for a plain softmax), or use the SOFTMAX op.

## Fix safety
Not applicable.

## References
docs/precision.md.
"""


def _gpu_ops(result) -> dict[int, object]:
    """Main-subgraph op index -> its check entry, for the ops the GPU takes."""
    return {o.index: o for o in result.ops if o.subgraph == 0 and o.placement == "gpu"}


def _described(op) -> str:
    return f"op#{op.index} {op.name} {op.outputs[0].name!r}"


def _overflow(result, analyses) -> list[Finding]:
    observed = _observed_gpu_ops(result, analyses)
    if not observed:
        return []
    ranges = analyses.value_ranges
    over = {i for i, r in ranges.items() if r.absmax > FP16_MAX}
    gpu = _gpu_ops(result)
    layer_norm_ops = {id(op) for ln in fp16_patterns.layer_norms(analyses.model.graphs[0]) for op in ln.ops}
    out = []
    for op, _ in observed:
        fix = ("`gpucompat fix --rewrite fp16-safe-layernorm` computes this LayerNorm in a scaled domain"
               if id(op) in layer_norm_ops else "scale the values down first, or run this part at fp32")
        entering = [t for t in op.present_inputs if t.index in over and not _from_gpu(t, gpu)]
        outs = [t for t in op.outputs if t.index in over]
        if entering:  # computed on the CPU (or a model input), stored as half when the GPU takes it
            t = entering[0]
            source = "from the CPU" if t.producer is not None else "(a model input)"
            message = (f"{_described(op)} reads {t.name!r} {source} with values up to "
                       f"{ranges[t.index].absmax:.3g}, past fp16's 65504: the GPU stores it as inf")
        elif outs and not any(t.index in over for t in op.present_inputs):  # where the overflow starts
            message = (f"{_described(op)} reaches {ranges[outs[0].index].absmax:.3g} on the inputs, past fp16's "
                       f"65504 ({_overflow_kind(op, ranges)})")
        else:
            continue
        out.append(Finding("PREC403", "error", f"{message}; {_readers_after(op, over)} op(s) after it read inf or "
                                               f"NaN at fp16 precision; {fix}", ((0, op.index),)))
    return out


def _from_gpu(t, gpu: dict) -> bool:
    """True when a GPU-placed op of the main subgraph writes `t`."""
    return t.producer is not None and t.producer.graph.index == 0 and t.producer.index in gpu


def _overflow_kind(op, ranges) -> str:
    x = fp16_patterns.squared_input(op)
    if x is not None:
        return "a square" + (f" of values up to {ranges[x.index].absmax:.3g}" if x.index in ranges else "")
    if op.name == "EXP" and op.present_inputs[0].index in ranges:
        return f"exp of logits up to {ranges[op.present_inputs[0].index].maximum:.3g} without max-subtraction"
    if op.name in fp16_patterns.SUMMING_OPS:
        return "a sum"
    return "the value itself"


def _readers_after(op, over: set[int]) -> int:
    """Ops downstream of `op` reached through tensors that overflow."""
    seen, todo = set(), [t for t in op.outputs if t.index in over]
    while todo:
        t = todo.pop()
        for reader in t.consumers:
            if id(reader) not in seen:
                seen.add(id(reader))
                todo.extend(x for x in reader.outputs if x.index in over)
    return len(seen)


def _observed_gpu_ops(result, analyses) -> list:
    """(main-subgraph GPU op, the value ranges) for each GPU op in plan order; none without data."""
    if analyses.value_ranges is None:
        return []
    graph = analyses.model.graphs[0]
    return [(graph.ops[index], analyses.value_ranges) for index in sorted(_gpu_ops(result))]


def _accumulation(result, analyses) -> list[Finding]:
    out = []
    for op, ranges in _observed_gpu_ops(result, analyses):
        index = op.index
        r = ranges.get(op.outputs[0].index) if op.outputs else None
        x = ranges.get(op.present_inputs[0].index)
        if r is not None and r.accumulated is not None and r.accumulated > FP16_MAX >= r.absmax \
                and (x is None or x.absmax <= FP16_MAX):  # else PREC403 names where it starts
            out.append(Finding("PREC404", "warning",
                               f"{_described(op)} adds up to {r.accumulated:.3g} in |x| before its result "
                               f"({r.absmax:.3g}): a GPU accumulating in half overflows past 65504",
                               ((0, index),)))
    return out


def _underflow(result, analyses) -> list[Finding]:
    out = []
    for op, ranges in _observed_gpu_ops(result, analyses):
        index = op.index
        for t in op.outputs:
            r = ranges.get(t.index)
            if r is not None and 0.0 < r.absmax < FP16_TINY and not _absorbed(t, r, ranges):
                out.append(Finding("PREC405", "warning",
                                   f"{_described(op)} is never above {r.absmax:.3g} in magnitude on the inputs: "
                                   f"every value is 0 in fp16 (below 6e-8)", ((0, index),)))
    return out


def _absorbed(t, r, ranges) -> bool:
    """True when every reader of `t` adds it to values so much larger that it is below their
    rounding step anyway (an epsilon added to a variance), directly or after MUL / DIV steps that
    keep it tiny: its flush to 0 changes nothing."""
    def smallest_magnitude(s) -> float:
        return s.minimum if s.minimum > 0 else (-s.maximum if s.maximum < 0 else 0.0)

    def absorbed_by(c) -> bool:
        out = ranges.get(c.outputs[0].index) if c.outputs else None
        if out is None:
            return False
        if c.name == "ADD":
            return smallest_magnitude(out) > 2048 * r.absmax
        return c.name in ("MUL", "DIV") and out.absmax < FP16_TINY and _absorbed(c.outputs[0], out, ranges)

    return bool(t.consumers) and all(absorbed_by(c) for c in t.consumers)


def _unscaled_variance(result, analyses) -> list[Finding]:
    if analyses.value_ranges is not None:
        return []  # with data, PREC403 says whether it overflows
    graph = analyses.model.graphs[0]
    sums = fp16_patterns.unscaled_sums_of_squares(graph)
    if not sums:
        return []
    gpu = _gpu_ops(result)
    layer_norm_squares = {id(ln.square) for ln in fp16_patterns.layer_norms(graph)}
    out = []
    for s in sums:
        if s.square.index in gpu and s.total.index in gpu:
            what = ("the variance of a LayerNorm; `gpucompat fix --rewrite fp16-safe-layernorm` rewrites it"
                    if id(s.square) in layer_norm_squares else "a sum of squares")
            out.append(Finding("PREC406", "warning",
                               f"op#{s.total.index} {s.total.name} sums the squares of {_described(s.square)}, "
                               f"unscaled "
                               f"({what}): past |x| ~ 256 they overflow fp16; data would confirm it "
                               f"(gpucompat check --inputs data.npz)", ((0, s.square.index), (0, s.total.index))))
    return out


def _unguarded_exp(result, analyses) -> list[Finding]:
    if analyses.value_ranges is not None:
        return []
    exps = fp16_patterns.unguarded_exps(analyses.model.graphs[0])
    gpu = _gpu_ops(result) if exps else {}
    return [Finding("PREC407", "warning",
                    f"{_described(op)} takes logits without max-subtraction: past 11.09 exp overflows fp16; "
                    f"data would confirm it (gpucompat check --inputs data.npz)", ((0, op.index),))
            for op in exps if op.index in gpu]


CLASS_FLIP_DOC = """\
## What it finds
Classifier-like outputs (rank 1 or 2, a class axis of 2 or more, written by SOFTMAX or
LOG_SOFTMAX, or FULLY_CONNECTED logits of 100 classes or more: gpucompat/verification/task_metrics.py)
whose top class changes at fp16 on the inputs given to `gpucompat check --inputs`. fp16 is emulated
without a GPU (gpucompat/fp16_emulation.py): every float tensor a GPU-placed op writes, and every
float constant it reads, rounded to half, on the reference interpreter. It approximates the
delegate's half storage op by op; the delegate rounds once per fused kernel and some devices also
accumulate in half.

## Why it matters on the GPU
fp16 is the default of the GPU delegate and LiteRT's accelerator. A classifier is judged by its
top class: an error of a few thousandths can turn one class into another where two logits are
close, and nothing in the run says so.

## Example
A real classifier's class 682 became 1671 on LiteRT's accelerator at its fp16 default (issue 23);
on `tests/models_verdict.py`'s two-class FULLY_CONNECTED + SOFTMAX, half rounds both 1.0003 and
1.0004 to 1: the probabilities tie and class 1 becomes 0.

## How to fix
Confirm with `gpucompat verify --precision fp16 --inputs DATA` (the executor) or `--runner
litert-gpu --precision fp16` (the real accelerator); then run the model at fp32
(`setPrecisionLossAllowed(false)` / `enforce_f32`), or keep the final layers on the CPU.

## Fix safety
Not applicable.

## References
docs/precision.md, docs/verify.md "Task-level numerics".
"""


def _class_flips(result, analyses) -> list[Finding]:
    flips = analyses.fp16_class_flips or {}
    graph = analyses.model.graphs[0] if flips else None
    out = []
    for index, task in sorted(flips.items()):
        t = graph.outputs[index]
        first = task["flips"][0]
        where = ((0, t.producer.index),) if t.producer is not None else ()
        out.append(Finding("PREC409", "warning",
                           f"fp16 (emulated) changes the top class of output {t.name!r} on {task['class_flips']} "
                           f"of {task['rows']} sample rows "
                           f"(sample {first['run']}: class {first['reference_class']} becomes {first['test_class']}); "
                           "confirm with `gpucompat verify --precision fp16 --inputs`", where))
    return out


RULES = [
    Rule("PREC401", "quantized-runs-in-float", "info", "Quantized ops on the GPU are emulated in float.",
         FLOAT_DOC, _quantized_on_gpu, uses_analyses=True),
    Rule("PREC402", "lstm-units-off-slices", "error",
         "A delegated basic LSTM whose units are not a multiple of 4 computes wrong values.", LSTM_DOC,
         _lstm_units_off_slices, uses_analyses=True),
    Rule("PREC403", "fp16-overflow", "error",
         "On the given inputs, a GPU op's values pass 65504 and become inf at fp16.", OVERFLOW_DOC, _overflow,
         uses_analyses=True),
    Rule("PREC404", "fp16-accumulation", "warning",
         "On the given inputs, a SUM / MEAN's partial sums pass 65504.", ACCUMULATION_DOC, _accumulation,
         uses_analyses=True),
    Rule("PREC405", "fp16-underflow", "warning",
         "On the given inputs, a GPU op's values are all below 6e-8: 0 at fp16.", UNDERFLOW_DOC, _underflow,
         uses_analyses=True),
    Rule("PREC406", "fp16-unscaled-variance", "warning",
         "A sum of squares of unscaled values (LayerNorm variance) may overflow fp16.", VARIANCE_DOC,
         _unscaled_variance, fix="fp16-safe-layernorm", uses_analyses=True),
    Rule("PREC407", "fp16-exp-without-max", "warning",
         "EXP of logits without max-subtraction may overflow fp16.", EXP_DOC, _unguarded_exp, uses_analyses=True),
    Rule("PREC409", "fp16-class-flip", "warning",
         "On the given inputs, emulated fp16 changes the top class of a classifier-like output.", CLASS_FLIP_DOC,
         _class_flips, uses_analyses=True),
]
