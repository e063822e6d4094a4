"""Elementwise fusion, as the delegate merges nodes (common/gpu_model.cc MergeNodes /
MergeElementwiseNodes): a node whose one output is not a graph output and is
read by exactly one linkable (elementwise) node, as that node's first input, takes the node into
its own kernel; the merged node may then take the next one, so whole chains fuse. The executor
also links a two-input op into the producer of its second input (`_next_link`): the same values,
one launch fewer.

Here a "graph output" is any tensor the partition hands on (a model output, or one read outside
the partition). A linked node's other operands must exist when the producer runs: constants,
partition inputs, or outputs of ops earlier than the producer (the delegate checks the linked
node's inputs are ready). The fused kernel stores straight into the chain's last tensor; the
intermediate tensors are never computed.

`epilogue` turns the linked ops into the EPILOGUE_PARAMS / EPILOGUE definitions that common.cl's
STORE_CELL applies in the producer's kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gpucompat.ir import Op
from gpucompat.opencl.phwc4 import bhwc

# Ops linked into one kernel at most. The delegate's MergeElementwiseNodes has no count of its
# own, but a kernel is bounded by what the device's compiler accepts: each link nests its
# producer's value three brackets deeper (TO_STORE(activate(binary(...)))) and OpenCL C compilers stop at 256
# (clang's bracket nesting limit, "bracket nesting level exceeded"); a longer chain continues in
# the next kernel, as a new producer.
MAX_LINKS = 64


def groups(ops: list[Op], handed_on: set[int], producer: Callable[[Op], bool],
           linkable: Callable[[Op], bool], merge: Callable[[Op], Op | None] | None = None) -> list[list[Op]]:
    """The partition's ops (execution order) as runs to execute: [producer, linked ops...] where
    fusion applies, [op] elsewhere. `handed_on` holds id() of the partition's output tensors.
    `merge(op)` names the op computed in one kernel with `op` (depthwise_plus_1x1, the delegate's
    special selector, or depthwise_into_1x1), which then heads the run with it: [op, merged op, linked ops...]."""
    position = {id(op): i for i, op in enumerate(ops)}
    linked: set[int] = set()
    runs = []
    for op in ops:
        if id(op) in linked:
            continue
        run = [op]
        partner = merge(op) if merge is not None else None
        if partner is not None:
            run.append(partner)
            linked.add(id(partner))
        kernel_end = len(run)
        while producer(run[kernel_end - 1]) and len(run) - kernel_end < MAX_LINKS:
            nxt = _next_link(run[-1], position, position[id(op)], handed_on, linkable)
            if nxt is None:
                break
            run.append(nxt)
            linked.add(id(nxt))
        runs.append(run)
    return runs


def _next_link(last: Op, position: dict[int, int], start: int, handed_on: set[int],
               linkable: Callable[[Op], bool]) -> Op | None:
    """The op linked after `last`, or None. Beyond the delegate's rule, which links an op only at its
    first input, the executor also links a two-input op into the producer of its second input: the
    first is then the operand (read as the op's own kernel reads it), and the producer's value is
    rounded to storage precision before the op, as its stored tensor would be (TO_STORE), so the op
    computes the values its own kernel computes, with one launch and one tensor fewer. A residual
    connection written ADD(skip, conv(...)), as Keras' MobileNetV2 writes it, fuses so."""
    if len(last.outputs) != 1:
        return None
    t = last.outputs[0]
    if id(t) in handed_on or len(t.consumers) != 1:
        return None
    c = t.consumers[0]
    if id(c) not in position or not linkable(c) or [i for i, x in enumerate(c.inputs) if x is t] not in ([0], [1]):
        return None
    if len(c.outputs) != 1 or bhwc(c.outputs[0].shape) != bhwc(t.shape):
        return None
    for x in c.present_inputs:
        if x is not t and x.producer is not None and id(x.producer) in position \
                and position[id(x.producer)] >= start:
            return None
    return c


# The delegate's special selector tries, before any other kernel, to compute a depthwise
# convolution and the 1x1 convolution reading its output in one kernel
# (common/selectors/special_selector.cc GPUSubgraphFromGraph -> TryDepthwiseConvPlus1x1Conv in
# common/tasks/special/depthwise_conv_plus_1x1_conv.cc, on Adreno, NVIDIA, Mali, Apple and AMD).
# Its size limits, IsDepthwiseConvPlus1x1ConvSupported's branch for Adreno / NVIDIA / AMD at F32
# and F32_F16 precision (the executor's fp32 and fp16 modes; the larger F16 limits apply only when
# the arithmetic itself is half): depthwise channels, depthwise channels x taps, 1x1 outputs,
# 1x1 inputs x outputs.
DW_CHANNELS, DW_CHANNEL_TAPS, PW_OUTPUTS, PW_WEIGHTS = 16, 3 * 3 * 16, 32, 16 * 32
# Fused activations the delegate turns into a ReLU node (model_builder_helper.cc
# MaybeFuseActivation), the one node the selector accepts between the two convolutions: NONE, RELU,
# RELU_N1_TO_1, RELU6 (a TANH node ends the match).
RELU_ACTIVATIONS = (0, 1, 2, 3)


def depthwise_plus_1x1(dw: Op, in_partition: set[int], handed_on: set[int], producer: Callable[[Op], bool],
                       constant: Callable[[object], bool]) -> Op | None:
    """The 1x1 CONV_2D the delegate computes in one kernel with `dw` (a pair of _depthwise_then_1x1
    within the channel limits above), or None. `in_partition` holds id() of the partition's ops;
    `constant(t)` says whether a tensor is known at load."""
    pair = _depthwise_then_1x1(dw, in_partition, handed_on, producer, constant)
    if pair is None:
        return None
    conv, channels, taps, cout, cin = pair
    if channels > DW_CHANNELS or channels * taps > DW_CHANNEL_TAPS or cout > PW_OUTPUTS or cin * cout > PW_WEIGHTS:
        return None
    return conv


# In fp32 no stored value is rounded, and the merged kernels sum as the two kernels do (conv.cl), so
# computing a pair in one kernel changes no value. The executor then merges, for speed, every pair
# whose 1x1 has at most two blocks of 16 outputs: one launch and one stored tensor fewer, for the
# depthwise sums computed once per block of outputs (docs/benchmarks.md, issue #27's merge round:
# MobileNetV2 0.35/128 and the MediaPipe landmark models a few percent faster; with two blocks
# rather than one, 0.97x MobileNetV2's time again, 0.94x hand_landmark_full's).
FP32_PW_OUTPUTS = 32


def depthwise_into_1x1(dw: Op, in_partition: set[int], handed_on: set[int], producer: Callable[[Op], bool],
                       constant: Callable[[object], bool]) -> Op | None:
    """The 1x1 CONV_2D the executor computes in one kernel with `dw` in fp32 (a pair of
    _depthwise_then_1x1 whose 1x1 has at most FP32_PW_OUTPUTS outputs), or None. Arguments as
    depthwise_plus_1x1's."""
    pair = _depthwise_then_1x1(dw, in_partition, handed_on, producer, constant)
    return pair[0] if pair is not None and pair[3] <= FP32_PW_OUTPUTS else None


def _depthwise_then_1x1(dw: Op, in_partition: set[int], handed_on: set[int], producer: Callable[[Op], bool],
                        constant: Callable[[object], bool]) -> tuple[Op, int, int, int, int] | None:
    """(the 1x1 CONV_2D, depthwise channels, depthwise taps, 1x1 outputs, 1x1 inputs) when `dw` is a
    DEPTHWISE_CONV_2D with multiplier 1, constant weights and bias and a ReLU-type (or no) fused
    activation, whose output (not fixed-point, not handed on) has one reader: a CONV_2D in the same
    partition reading it as its input, with constant weights, a 1x1 filter over all of its channels,
    stride and dilation 1. None otherwise."""
    if dw.name != "DEPTHWISE_CONV_2D" or not producer(dw) or len(dw.outputs) != 1 or len(dw.inputs[1].shape) != 4:
        return None
    mid = dw.outputs[0]
    if id(mid) in handed_on or len(mid.consumers) != 1 or not all(constant(t) for t in dw.present_inputs[1:]):
        return None
    if (getattr(dw.options, "fusedActivationFunction", 0) or 0) not in RELU_ACTIVATIONS:
        return None
    conv = mid.consumers[0]
    if conv.name != "CONV_2D" or id(conv) not in in_partition or conv.inputs[0] is not mid \
            or not all(constant(t) for t in conv.present_inputs[1:]) or len(conv.inputs[1].shape) != 4:
        return None
    _, kh, kw, channels = (int(d) for d in dw.inputs[1].shape)
    cout, ckh, ckw, cin = (int(d) for d in conv.inputs[1].shape)
    o = conv.options
    if o is None or channels != bhwc(dw.inputs[0].shape).c or cin != channels:  # multiplier 1; no groups
        return None
    if (ckh, ckw, o.strideH, o.strideW, o.dilationHFactor or 1, o.dilationWFactor or 1) != (1, 1, 1, 1, 1, 1):
        return None
    return conv, channels, kh * kw, cout, cin


def merged_padding(pad: Op, in_partition: set[int], handed_on: set[int],
                   constant: Callable[[object], bool]) -> tuple[Op, int, int] | None:
    """(the convolution, rows, columns) when the delegate folds PAD `pad` into the one convolution
    reading it: zero padding of H and W only (the leading rows and columns added become the
    convolution's own extra leading padding; the trailing ones are implied by its output size), a
    float output not handed on and read by exactly one CONV_2D or DEPTHWISE_CONV_2D in the partition,
    as its input, with constant weights (common/transformations/merge_padding_with.cc
    MergePaddingWith2DOperation, applied by the delegate's model transformations before any kernel
    is chosen). None otherwise."""
    if pad.name != "PAD" or len(pad.outputs) != 1 or len(pad.inputs[0].shape) != 4:
        return None
    out, amounts = pad.outputs[0], pad.inputs[1].data()
    if id(out) in handed_on or len(out.consumers) != 1 or out.quantization is not None or amounts is None:
        return None
    conv = out.consumers[0]
    if conv.name not in ("CONV_2D", "DEPTHWISE_CONV_2D") or id(conv) not in in_partition \
            or conv.inputs[0] is not out or not constant(conv.input(1)):
        return None
    rows = [[int(v) for v in pair] for pair in np.asarray(amounts).reshape(-1, 2)]
    if rows[0] != [0, 0] or rows[3] != [0, 0]:
        return None
    return conv, rows[1][0], rows[2][0]


def kernel_ops(run: list[Op]) -> list[Op]:
    """The ops a run's kernel computes itself (the rest are linked elementwise ops): its first op,
    or a depthwise convolution and the 1x1 convolution merged with it."""
    return run[:2] if len(run) > 1 and run[1].name == "CONV_2D" else run[:1]


@dataclass
class Link:
    """One linked op in OpenCL terms: its math on `v` (the running value) at cell (b, s, y, x),
    and the operands it reads (tensor, BHWC dims) if any."""

    math: str
    operand: tuple[object, tuple[int, int, int, int]] | None = None


@dataclass
class Epilogue:
    """The ops fused into a producer: EPILOGUE's math on the producer's value `v` (`body`), the
    links whose operand it reads (`operands`: i for each `link{i}`, `link{i}_d` parameter pair) and
    the matching kernel arguments (`args`: tensor, dims per operand, in that order)."""

    body: str
    operands: tuple[int, ...] = ()
    args: list = field(default_factory=list)

    @property
    def source(self) -> str:
        """The EPILOGUE_PARAMS / EPILOGUE definitions a producer's program is built with."""
        return _definitions(_params(self.operands), self.body)


def _params(operands) -> str:
    return "".join(f", __global const store_t* link{i}, int4 link{i}_d" for i in operands)


def _definitions(params: str, body: str) -> str:
    return "\n".join([f"#define EPILOGUE_PARAMS {params}", f"#define EPILOGUE(v, b, s, y, x) ({body})"])


def epilogue(links: list[Link]) -> Epilogue:
    """The Epilogue of a chain: link i with an operand reads it as `link{i}` with dims `link{i}_d`,
    broadcast like the elementwise kernels (read_broadcast). The producer's value and every link's
    result go through TO_STORE (common.cl): rounded to half in fp16, as the delegate's fused
    kernels compute on half values."""
    body, operands, args = "TO_STORE(v)", [], []
    for i, link in enumerate(links):
        operand = "(float4)(0.0f)"
        if link.operand is not None:
            operands.append(i)
            operand = f"read_broadcast(link{i}, link{i}_d, b, s, y, x)"
            args.extend(link.operand)
        body = "TO_STORE(" + link.math.replace("OPERAND", operand).replace("VALUE", body) + ")"
    return Epilogue(body, tuple(operands), args)


# A kernel launched with several epilogues (a pointwise convolution stored as it is, with a residual
# ADD, with ADD and a PRELU...) is compiled once with all of them, the launch choosing its own by a
# last argument: compiling a kernel costs PoCL and Intel's runtime 0.1-1.1 s each time, most of a
# cold start, and the choice, the same for every work-item, is one well-predicted branch per store.
PLAIN = Epilogue("v")  # a kernel's value stored as it is


def shared(epilogues: list[Epilogue]) -> tuple[str, tuple[int, ...]]:
    """The EPILOGUE definitions choosing among `epilogues` (distinct) by the kernel's last argument
    `epilogue`, the index of the one a launch applies, and the operand slots they read between
    them (their union: each launch passes all of them, see `shared_arguments`)."""
    slots = tuple(sorted({i for e in epilogues for i in e.operands}))
    body = epilogues[-1].body
    for k in range(len(epilogues) - 2, -1, -1):
        body = f"epilogue == {k} ? ({epilogues[k].body}) : ({body})"
    return _definitions(_params(slots) + ", int epilogue", body), slots


def shared_arguments(e: Epilogue, slots: tuple[int, ...], index: int, unused) -> list:
    """The extra kernel arguments of a launch applying `e`, the `index`-th epilogue of a shared
    definition over operand `slots`: its own operands, `unused` (with dims 0, never read) in the
    slots only the others read, then `index`."""
    given = dict(zip(e.operands, zip(e.args[::2], e.args[1::2])))
    return [a for i in slots for a in given.get(i, (unused, (0, 0, 0, 0)))] + [index]
