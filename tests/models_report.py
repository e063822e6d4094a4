"""Models for the HTML report: one whose strings are hostile markup, and one with 1,000+ ops."""

import flatbuffers
from ai_edge_litert import schema_py_generated as fb

from modelgen import BUILDERS, builder, convert_fn, tf

SCRIPT_NAME = "<script>alert(1)</script>"
IMG_NAME = "\"'><img src=x onerror=alert(1)>"
CUSTOM_CODE = "<svg onload=alert(1)>"
DESCRIPTION = "</title><script>alert(2)</script>"

# The 1,000+ op model: BLOCKS runs of RUN_OPS supported element-wise ops, each run followed by a
# ROUND, which the GPU delegate does not take.
BLOCKS, STEPS = 8, 42
RUN_OPS = 3 * STEPS  # TANH, MUL, ADD per step


@builder("hostile_names")
def hostile_names() -> bytes:
    """conv_relu (CONV_2D, MEAN, FULLY_CONNECTED) with markup as names, an object-API edit: the input
    and the conv output are renamed, the FULLY_CONNECTED op becomes a custom op with a markup code,
    and the description is markup."""
    model = fb.ModelT.InitFromPackedBuf(bytearray(BUILDERS["conv_relu"]()), 0)
    graph = model.subgraphs[0]
    graph.tensors[graph.inputs[0]].name = SCRIPT_NAME.encode()
    graph.tensors[graph.operators[0].outputs[0]].name = IMG_NAME.encode()
    fc = graph.operators[2]
    code = fb.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = fb.BuiltinOperator.CUSTOM
    code.customCode = CUSTOM_CODE.encode()
    code.version = 1
    model.operatorCodes.append(code)
    fc.opcodeIndex = len(model.operatorCodes) - 1
    fc.builtinOptionsType, fc.builtinOptions = 0, None
    model.description = DESCRIPTION.encode()
    b = flatbuffers.Builder(1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


@builder("thousand_ops")
def thousand_ops() -> bytes:
    """BLOCKS x (RUN_OPS element-wise ops + ROUND): 1,016 ops, 16 node subsets."""
    t = tf()

    def f(x):
        for _ in range(BLOCKS):
            for _ in range(STEPS):
                x = t.tanh(x) * 1.01 + 0.5
            x = t.round(x)
        return x

    return convert_fn(f, [([1, 4, 4, 4], t.float32)])
