"""Runs in onnx2tf's Python (never the test environment): an ONNX graph with node names as
torch.onnx.export writes them, converted by onnx2tf's Python API.

    python onnx2tf_attribution.py OUT_DIR     (writes OUT_DIR/net_float32.tflite)"""

import os
import sys

import numpy as np
import onnx
import onnx2tf
from onnx import TensorProto, helper, numpy_helper


def graph() -> onnx.ModelProto:
    """Reflect padding in module `stem`, a 1x1 convolution, a softmax in `layers.0.attn`, and a
    gate: the HardSigmoid of a second convolution (its clamp RELU_0_TO_1 once converted) times the
    softmax; then a ConvTranspose and a Relu (TRANSPOSE_CONV version 4, the activation fused)."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
             numpy_helper.from_array(rng.standard_normal((8, 4, 1, 1)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal((8, 8, 1, 1)).astype(np.float32), "w2"),
             numpy_helper.from_array(rng.standard_normal((8, 4, 2, 2)).astype(np.float32), "w3"),
             numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "b3")]
    nodes = [helper.make_node("Pad", ["x", "pads"], ["padded"], name="/stem/Pad", mode="reflect"),
             helper.make_node("Conv", ["padded", "w"], ["conv"], name="/stem/conv/Conv"),
             helper.make_node("Softmax", ["conv"], ["attn"], name="/layers.0/attn/Softmax", axis=1),
             helper.make_node("Conv", ["attn", "w2"], ["mixed"], name="/head/conv/Conv"),
             helper.make_node("HardSigmoid", ["mixed"], ["gate"], name="/head/HardSigmoid"),
             helper.make_node("Mul", ["gate", "attn"], ["gated"], name="/head/Mul"),
             helper.make_node("ConvTranspose", ["gated", "w3", "b3"], ["up"], name="/up/ConvTranspose",
                              strides=[2, 2], kernel_shape=[2, 2]),
             helper.make_node("Relu", ["up"], ["y"], name="/up/Relu")]
    # 4 channels: onnx2tf fetches calibration images for a 3-channel image input
    g = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 16, 16])], initializer=inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    return model


def main(out: str) -> None:
    path = os.path.join(out, "net.onnx")
    onnx.save(graph(), path)
    onnx2tf.convert(input_onnx_file_path=path, output_folder_path=out, non_verbose=True)


if __name__ == "__main__":
    main(sys.argv[1])
