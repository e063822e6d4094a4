"""Bad input: one line naming the file and the problem, exit 2, no traceback, nothing written."""

import os

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from cli import gpucompat
from gpucompat import ir


def edited(models, tmp_path, name: str, edit) -> str:
    """Write a copy of model `name` after `edit(ModelT)` changed its object-API record."""
    record = fb.ModelT.InitFromPackedBuf(bytearray(models.bytes(name)), 0)
    edit(record)
    import flatbuffers

    b = flatbuffers.Builder(1024)
    b.Finish(record.Pack(b), file_identifier=b"TFL3")
    p = tmp_path / f"{name}-edited.tflite"
    p.write_bytes(bytes(b.Output()))
    return str(p)


def assert_clean_error(result, path: str, words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert path in lines[0] and words in lines[0], lines[0]


def _set_op_input(record, index):
    record.subgraphs[0].operators[0].inputs = np.array([index, 1, 2], dtype=np.int32)


def _set_opcode_index(record, index):
    record.subgraphs[0].operators[0].opcodeIndex = index


def _set_buffer(record, index):
    record.subgraphs[0].tensors[0].buffer = index


def _negative_dim(record):
    record.subgraphs[0].tensors[0].shape = np.array([1, -7, 16, 3], dtype=np.int32)


@pytest.mark.parametrize("content, words", [
    (b"", "is empty"),
    (os.urandom(4096), "not a TFLite model"),
    (b"\x89PNG\r\n\x1a\n" + bytes(64), "PNG image"),
    (b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n", "git lfs pull"),
    (b"1234TFL3" + bytes(8), "looks truncated: the file is 16 bytes"),  # its root table lies past the end
    (b"\x08\x08\x12\x07pytorch\x1a\x032.1", "an ONNX model: convert it to .tflite"),
])
def test_unreadable_files(tmp_path, content, words):
    p = tmp_path / "model.tflite"
    p.write_bytes(content)
    assert_clean_error(gpucompat("check", str(p)), str(p), words)


def test_truncated_model(models, tmp_path):
    data = models.bytes("conv_relu")
    p = tmp_path / "truncated.tflite"
    p.write_bytes(data[: len(data) // 3])
    r = gpucompat("check", str(p))
    assert_clean_error(r, str(p), f"looks truncated: the file is {len(data) // 3:,} bytes, but its structure reaches")
    assert "unpack_from" not in r.stderr


@pytest.mark.parametrize("name, content, words", [
    ("model.onnx", b"\x08\x07\x12\x07pytorch", "an ONNX model: convert it to .tflite first (onnx2tf"),
    ("saved_model.pb", b"\x08\x01\x12\x05graph", "TensorFlow protocol buffer"),
    ("model.h5", b"\x89HDF\r\n\x1a\n" + bytes(32), "a Keras model: convert it with tf.lite.TFLiteConverter"),
    ("model.keras", b"PK\x03\x04" + bytes(32), "a Keras model"),
    ("model.pt", b"PK\x03\x04\x00\x00archive/data.pkl", "a PyTorch model: convert it to .tflite with ai-edge-torch"),
    ("weights.pth", b"\x80\x02}q\x00", "a PyTorch model"),
])
def test_other_model_formats_are_named_with_how_to_convert(tmp_path, name, content, words):
    p = tmp_path / name
    p.write_bytes(content)
    assert_clean_error(gpucompat("check", str(p)), str(p), words)


def test_report_of_a_model_that_cannot_be_read_writes_nothing(models, tmp_path):
    bad = tmp_path / "truncated.tflite"
    bad.write_bytes(models.bytes("conv_relu")[:100])
    out = tmp_path / "r.html"
    r = gpucompat("report", str(bad), "-o", str(out))
    assert_clean_error(r, str(bad), "looks truncated")
    assert r.stdout == "" and not out.exists()
    r = gpucompat("report", str(bad), models.path("conv_relu"), "-o", str(out))  # the good one is reported
    assert r.returncode == 2 and "looks truncated" in r.stderr
    assert r.stdout.strip() == f"wrote {out} (1 of 2 models could not be checked)" and out.exists()


def test_wrong_identifier(models, tmp_path):
    data = bytearray(models.bytes("conv_relu"))
    data[4:8] = b"XXXX"
    p = tmp_path / "ident.tflite"
    p.write_bytes(bytes(data))
    assert_clean_error(gpucompat("check", str(p)), str(p), "TFL3")


@pytest.mark.parametrize("edit, words", [
    (lambda r: _set_op_input(r, 9999), "refers to tensor 9999"),
    (lambda r: _set_op_input(r, -5), "refers to tensor -5"),
    (lambda r: _set_opcode_index(r, 77), "op code index 77"),
    (lambda r: _set_buffer(r, 5000), "buffer 5000"),
    (_negative_dim, "negative dimension"),
])
def test_out_of_range_and_absurd_fields(models, tmp_path, edit, words):
    p = edited(models, tmp_path, "conv_relu", edit)
    assert_clean_error(gpucompat("check", p), p, words)


def test_absurd_shape_is_arithmetic_not_allocation(models, tmp_path):
    """A tensor claiming 2**31 x 2**31 x ... elements is checked without allocating anything."""
    def huge(record):
        record.subgraphs[0].tensors[0].shape = np.array([2**31 - 1] * 4, dtype=np.int32)

    p = edited(models, tmp_path, "conv_relu", huge)
    m = ir.load(p)
    assert m.graphs[0].tensors[0].num_elements == (2**31 - 1) ** 4
    r = gpucompat("check", p, "--format", "json")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr


def test_missing_file_and_empty_directory(tmp_path):
    missing = str(tmp_path / "nope.tflite")
    assert_clean_error(gpucompat("check", missing), missing, "no such file")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_clean_error(gpucompat("check", str(empty)), str(empty), "no .tflite models")


def test_zero_operator_subgraph(models, tmp_path):
    def no_ops(record):
        sg = record.subgraphs[0]
        sg.operators = []
        sg.outputs = sg.inputs

    p = edited(models, tmp_path, "conv_relu", no_ops)
    r = gpucompat("check", p, "--format", "json")
    assert r.returncode == 0, r.stderr
    import json

    summary = json.loads(r.stdout)["models"][0]["summary"]
    assert summary["ops_total"] == 0 and summary["ops_gpu"] == 0


def test_several_models_worst_status_wins(models, tmp_path):
    good = models.path("conv_relu")
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"nonsense")
    r = gpucompat("check", good, str(bad))
    assert r.returncode == 2
    assert str(bad) in r.stderr and good in r.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "model-explorer"])
def test_machine_formats_also_say_it_on_stderr(tmp_path, fmt):
    p = tmp_path / "model.tflite"
    p.write_bytes(b"")
    out = tmp_path / "out.json"
    r = gpucompat("check", str(p), "--format", fmt, "--output", str(out))
    assert_clean_error(r, str(p), "is empty")


def test_escape_codes_in_an_invalid_model_never_reach_the_terminal(models, tmp_path):
    """The reader's error names the op; control characters in a custom code must be shown, not
    obeyed (click strips ANSI colour sequences off a pipe, but not a bell or a carriage return)."""
    def hostile(record):
        record.operatorCodes[0].builtinCode = 32  # CUSTOM
        record.operatorCodes[0].deprecatedBuiltinCode = 32
        record.operatorCodes[0].customCode = "EVIL\x07\rFAKE"
        record.subgraphs[0].operators[0].outputs = np.array([], dtype=np.int32)  # invalid: no outputs

    p = edited(models, tmp_path, "conv_relu", hostile)
    for command in (("check",), ("fix", "--dry-run"), ("report", "-o", str(tmp_path / "r.html"))):
        r = gpucompat(*command, p)
        assert r.returncode == 2 and not {"\x07", "\r"} & set(r.stderr + r.stdout), (command, r.stderr)


def test_signature_names_that_are_not_utf8(models, tmp_path):
    def bad_name(record):
        record.signatureDefs[0].inputs[0].name = b"\xff\xfeargs"

    p = edited(models, tmp_path, "conv_relu", bad_name)
    r = gpucompat("check", p, "--profile", "litert-mldrift", "--format", "json")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr and "internal error" not in r.stderr
