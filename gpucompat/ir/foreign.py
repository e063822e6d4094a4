"""Other model formats a user may hand gpucompat by mistake, recognised from the first bytes and
the file name, each with how to turn it into a .tflite: the error names what the file is instead
of only what it is not."""

from __future__ import annotations

import os

_TO_TFLITE = {
    "onnx": "an ONNX model: convert it to .tflite first (onnx2tf -i MODEL.onnx, or export the PyTorch "
            "source with ai-edge-torch)",
    "pytorch": "a PyTorch model: convert it to .tflite with ai-edge-torch "
               "(ai_edge_torch.convert(module, sample_inputs).export('model.tflite'))",
    "keras": "a Keras model: convert it with tf.lite.TFLiteConverter.from_keras_model(keras.models.load_model(PATH))",
    "tensorflow": "a TensorFlow protocol buffer (GraphDef or SavedModel): convert the SavedModel directory with "
                  "tf.lite.TFLiteConverter.from_saved_model(DIR)",
}
_HDF5 = b"\x89HDF\r\n\x1a\n"
_ZIP = b"PK\x03\x04"


def recognise(path: str, head: bytes) -> str | None:
    """What the file is and how to convert it, when its first bytes (or, for a protocol buffer,
    its name) say it is ONNX, PyTorch, Keras or TensorFlow; None otherwise."""
    ext = os.path.splitext(path)[1].lower()
    if head.startswith(_HDF5):
        return _TO_TFLITE["keras"]
    if head.startswith(_ZIP):
        if ext == ".keras":
            return _TO_TFLITE["keras"]
        if ext in (".pt", ".pth", ".ptl") or b"/data.pkl" in head or b"archive/" in head:
            return _TO_TFLITE["pytorch"]
        return None
    if head[:1] == b"\x80" and ext in (".pt", ".pth", ".pkl", ".bin"):  # a pickled state dict
        return _TO_TFLITE["pytorch"]
    if ext == ".pb":  # before ONNX: a SavedModel's saved_model.pb also starts 08 01 12
        return _TO_TFLITE["tensorflow"]
    if _looks_like_onnx(head) or ext == ".onnx":
        return _TO_TFLITE["onnx"]
    return None


def _looks_like_onnx(head: bytes) -> bool:
    """An ONNX ModelProto starts with field 1, ir_version (3 to 15 in every released ONNX), then a
    string field (producer name 2, producer version 3) or the graph (7)."""
    return len(head) >= 3 and head[0] == 0x08 and 3 <= head[1] <= 15 and head[2] in (0x12, 0x1A, 0x3A)
