"""The streamed JSON writer (gpucompat/output/json_stream.py): the same document json.dumps
writes, laid out a line per record, and written to a file or stdout without a whole-document
string."""

import json
import math

import pytest

from gpucompat.output import json_stream
from gpucompat.output.destination import write_json

DOCUMENTS = [
    {},
    [],
    {"a": [], "b": {}, "c": None, "d": [1, 2.5, "x"], "e": True},
    {"models": [{"ops": [{"i": i, "name": f"op{i}", "shape": [1, i, 3]} for i in range(5)], "error": None}]},
    {"models": [{"nested": [[1, 2], [3, [4, {"deep": "é \"quoted\" \n"}]]]}]},
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key", "s": "str key"},
    {"nan": math.nan, "inf": math.inf, "tiny": 1e-320, "big": 12345678901234567890},
    [{"runs": [{"results": [{"level": "error", "message": {"text": "<script>"}}]}]}],
]


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_the_text_reads_back_as_json_dumps_reads(doc):
    text = "".join(json_stream.lines(doc))
    assert text.endswith("\n")
    # NaN never equals itself: compare the canonical compact spellings
    assert json.dumps(json.loads(text)) == json.dumps(json.loads(json.dumps(doc)))


def test_each_record_of_a_long_list_is_one_line():
    ops = [{"index": i, "inputs": [{"name": f"t{i}", "shape": [1, 8]}]} for i in range(1000)]
    text = "".join(json_stream.lines({"models": [{"path": "m.tflite", "ops": ops}]}))
    lines = text.splitlines()
    op_lines = [line for line in lines if line.lstrip().startswith('{"index"')]
    assert len(op_lines) == 1000
    assert json.loads(op_lines[7].rstrip(",")) == ops[7]
    # the structure above the records stays readable: the model's keys each on a line
    assert '      "path": "m.tflite",' in lines


def test_a_file_is_written_whole_and_a_failure_leaves_nothing(tmp_path):
    target = tmp_path / "out.json"
    doc = {"models": [{"ops": [{"i": i} for i in range(50_000)]}]}
    write_json(doc, str(target))
    assert json.loads(target.read_text()) == doc

    class Unencodable:
        pass

    with pytest.raises(TypeError):
        write_json({"models": [{"ops": [{"i": 1}, {"bad": Unencodable()}]}]}, str(tmp_path / "bad.json"))
    assert not (tmp_path / "bad.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_stdout_gets_the_same_text(capsys):
    doc = {"models": [{"ops": [{"i": i} for i in range(3)]}]}
    write_json(doc, None)
    assert capsys.readouterr().out == "".join(json_stream.lines(doc))


def test_without_the_c_encoder_the_text_is_the_same(monkeypatch):
    # another Python may lack json's C encoder: the records then go through JSONEncoder.encode
    doc = {"models": [{"ops": [{"i": i, "name": f"é{i}", "x": [1.5, None, True]} for i in range(600)],
                       "nan": math.nan}]}
    with_c = "".join(json_stream.lines(doc))
    monkeypatch.setattr(json_stream.encoder, "c_make_encoder", None)
    monkeypatch.setattr(json_stream, "_encode", json_stream._one_line_encoder())
    assert json_stream._encode == json_stream._ONE_LINE.encode
    assert "".join(json_stream.lines(doc)) == with_c
