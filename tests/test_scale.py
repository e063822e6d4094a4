"""Models read lazily and written streaming: the converter's buffer-offset layout (what it writes
past 2 GB) read and kept, the same layout chosen past a size limit, weights left in the file's
map, and LiteRT-LM bundles checked section by section. No file here is large: the > 2 GB layout
is exercised on converter output that uses it at small size, and by lowering the writer's limit."""

import json

import numpy as np
import pytest

from cli import gpucompat
from gpucompat import ir
from gpucompat.ir.mapped import FileMap
from roundtrip import run, structure


def _outside(model_bytes: bytes) -> list[tuple[int, int]]:
    """(offset, size) of every buffer stored after the flatbuffer."""
    from ai_edge_litert import schema_py_generated as fb

    m = fb.Model.GetRootAs(model_bytes)
    return [(m.Buffers(i).Offset(), m.Buffers(i).Size()) for i in range(m.BuffersLength())
            if m.Buffers(i).Offset() > 1]


def _same_outputs(a: bytes, b: bytes) -> None:
    for x, y in zip(run(a), run(b), strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True)


def test_offset_layout_is_read_and_kept(models):
    """The converter's layout past 2 GB: the constants are read where the offsets say, and an
    untouched save keeps them there (aligned to 16) with the same content and outputs."""
    original = models.bytes("scale_offset_fc")
    assert _outside(original), "the converter did not use its offset layout"
    model = ir.from_bytes(original)
    saved = ir.to_bytes(model)
    places = _outside(saved)
    assert places and all(offset % 16 == 0 for offset, _ in places)
    assert structure(ir.from_bytes(saved)) == structure(model)
    _same_outputs(original, saved)


def test_inline_model_past_the_limit_is_written_in_the_offset_layout(models):
    """A model whose constants would not fit under the limit gets the converter's offset layout
    and its `buffer_location` metadata; metadata buffers stay inside, which is where the runtime
    reads them."""
    original = models.bytes("conv_relu")
    assert not _outside(original)
    model = ir.load(models.path("conv_relu"))
    saved = ir.to_bytes(model, inline_limit=len(original) // 2)
    assert _outside(saved)
    again = ir.from_bytes(saved)
    assert again.metadata()["buffer_location"] == b"outside flatbuffers"
    assert again.metadata()["min_runtime_version"] == ir.from_bytes(original).metadata()["min_runtime_version"]
    assert {k: v for k, v in structure(again).items() if k != "metadata"} == \
        {k: v for k, v in structure(ir.from_bytes(original)).items() if k != "metadata"}
    _same_outputs(original, saved)


def test_fix_keeps_the_offset_layout_and_the_model_runs(models, tmp_path):
    out = tmp_path / "fixed.tflite"
    r = gpucompat("fix", models.path("scale_offset_stb"), "-o", str(out), "--no-verify", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert [a["rewrite"] for a in json.loads(r.stdout)["applied"]] == ["fold-space-to-batch"]
    fixed = out.read_bytes()
    assert _outside(fixed)
    assert "SPACE_TO_BATCH_ND" not in [op.name for op in ir.from_bytes(fixed).ops()]
    original = models.bytes("scale_offset_stb")
    for x, y in zip(run(original), run(fixed), strict=True):
        assert np.allclose(x, y, atol=1e-5)


def test_weights_stay_in_the_file_map(models):
    """Loading maps the file: every constant is a view of the map, not a copy."""
    model = ir.load(models.path("rw_fp16_cnn"))
    assert isinstance(model.source, FileMap)
    constants = [t for g in model.graphs for t in g.tensors if t.is_constant]
    whole = np.frombuffer(model.source, dtype=np.uint8)
    assert constants and all(np.shares_memory(t.buffer.data, whole) for t in constants)


# ------------------------------------------------------------------ LiteRT-LM bundles

def _bundle(path, models, *, tflite: list[str], tokenizer: bool) -> str:
    """A .litertlm bundle written by litert-lm-builder (the LiteRT-LM project's own tooling)."""
    from litert_lm_builder import litertlm_builder as lb

    b = lb.LitertLmFileBuilder()
    b.add_system_metadata(lb.Metadata(key="author", value="gpucompat tests", dtype=lb.DType.STRING))
    if tokenizer:
        tok = path.parent / "tokenizer.bin"
        tok.write_bytes(b"a tokenizer's bytes, not a model")
        b.add_generic_binary_data(str(tok))
    for name in tflite:
        b.add_tflite_model(models.path(name), lb.TfLiteModelType.PREFILL_DECODE)
    with open(path, "wb") as f:
        b.build(f)
    return str(path)


def test_bundle_is_checked_section_by_section(models, tmp_path):
    bundle = _bundle(tmp_path / "two.litertlm", models, tflite=["conv_relu", "stb_same_bias_relu"], tokenizer=True)
    r = gpucompat("check", bundle, "--format", "json", "--fail-on", "never")
    assert r.returncode == 0, r.stderr
    recs = json.loads(r.stdout)["models"]
    assert [m["path"] for m in recs] == [f"{bundle}::section 1", f"{bundle}::section 2"]
    for rec, name in zip(recs, ["conv_relu", "stb_same_bias_relu"]):
        alone = json.loads(gpucompat("check", models.path(name), "--format", "json", "--fail-on", "never").stdout)
        assert rec["summary"] == alone["models"][0]["summary"]
    assert "section 0 (GenericBinaryData)" in r.stderr and "not TFLite models" in r.stderr


def test_bundle_report_names_the_sections(models, tmp_path):
    bundle = _bundle(tmp_path / "one.litertlm", models, tflite=["conv_relu"], tokenizer=False)
    out = tmp_path / "report.html"
    r = gpucompat("report", bundle, "-o", str(out))
    assert r.returncode in (0, 1), r.stderr
    assert f"{bundle}::section 0" in out.read_text()


@pytest.mark.parametrize("command", ["verify", "fix"])
def test_a_command_on_one_model_names_the_bundle_s_models(models, tmp_path, command):
    """verify and fix take one model: given a bundle they say, in one line, how to name the one
    inside (and then run on it like on the plain file)."""
    bundle = _bundle(tmp_path / "one.litertlm", models, tflite=["conv_relu"], tokenizer=True)
    extra = ["-o", str(tmp_path / "out.tflite")] if command == "fix" else ["--runner", "litert-gpu"]
    r = gpucompat(command, bundle, *extra)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"name its TFLite model as '{bundle}::section 1'" in r.stderr


def test_bundle_without_a_tflite_model_is_one_line(models, tmp_path):
    bundle = _bundle(tmp_path / "none.litertlm", models, tflite=[], tokenizer=True)
    r = gpucompat("check", bundle)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == f"gpucompat: {bundle}: the LiteRT-LM bundle holds no TFLite model"


@pytest.mark.parametrize("cut", [8, 40, 200])
def test_truncated_bundle_is_one_line(models, tmp_path, cut):
    bundle = tmp_path / "cut.litertlm"
    whole = _bundle(tmp_path / "whole.litertlm", models, tflite=["conv_relu"], tokenizer=False)
    bundle.write_bytes(open(whole, "rb").read()[:cut])
    r = gpucompat("check", str(bundle))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr and str(bundle) in r.stderr


def test_a_model_from_a_pipe_is_read(models, tmp_path):
    """A pipe cannot be mapped (`gpucompat check <(curl ...)`): it is read instead."""
    import os
    import threading

    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    data = models.bytes("conv_relu")
    feeder = threading.Thread(target=lambda: fifo.write_bytes(data))
    feeder.start()
    r = gpucompat("check", str(fifo), "--format", "json", "--fail-on", "never")
    feeder.join()
    assert r.returncode == 0, r.stderr
    alone = json.loads(gpucompat("check", models.path("conv_relu"), "--format", "json", "--fail-on", "never").stdout)
    assert json.loads(r.stdout)["models"][0]["summary"] == alone["models"][0]["summary"]
