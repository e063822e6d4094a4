"""tools/borderline_forms.py without the accelerator: which recorded keys it measures again (right,
with evidence within a factor of 3 of the threshold) and that recording a key changes that key's
line of the table and no other (another run may be adding keys to the same file)."""

import json
import os
import sys

import pytest

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tools import borderline_forms  # noqa: E402

RIGHT = {"cosine": 1.0, "max_error": 0.0, "wrong": False, "example": "x"}


def _entry(**fp32) -> dict:
    return {"fp32": {**RIGHT, **fp32}, "fp16": dict(RIGHT)}


def test_only_keys_recorded_right_near_their_threshold_are_measured_again():
    forms = {
        "near max error": _entry(max_error=5e-4),  # within 3 of fp32's 1e-3
        "near cosine": _entry(cosine=0.99994),  # within 3 of fp32's 0.9999
        "far": _entry(max_error=2e-4),
        "already wrong": _entry(max_error=5e-3, wrong=True),
        "near at fp16": {"fp32": dict(RIGHT), "fp16": {**RIGHT, "max_error": 0.005}},
    }
    assert borderline_forms.near_threshold(forms) == {"near max error": ["fp32"], "near cosine": ["fp32"],
                                                      "near at fp16": ["fp16"]}


def test_recording_a_key_rewrites_its_line_alone(tmp_path):
    path = tmp_path / "table.json"
    lines = ['{', ' "litert": "2.3.0",', ' "forms": {',
             '  "A rank 1": {"fp32":{"cosine":1.0,"max_error":0.0,"wrong":false,"example":"a"}},',
             '  "B rank 1": {"fp32":{"cosine":1.0,"max_error":0.0005,"wrong":false,"example":"b"}},',
             '  "C rank 1": {"fp32":{"cosine":1.0,"max_error":0.0,"wrong":false,"example":"c"}}', ' }', '}']
    path.write_text("\n".join(lines) + "\n")
    wrong = {"fp32": {"cosine": 1.0, "max_error": 0.002, "wrong": True, "example": "b at [3, 5]"}}
    borderline_forms.rewrite_lines(str(path), {"B rank 1": wrong})
    after = path.read_text().split("\n")
    assert [i for i, (a, b) in enumerate(zip(lines + [""], after)) if a != b] == [4]
    assert json.loads(path.read_text())["forms"]["B rank 1"] == wrong
    with pytest.raises(KeyError, match="D rank 1"):
        borderline_forms.rewrite_lines(str(path), {"D rank 1": wrong})


def test_only_a_wrong_layout_spreads_to_the_other_binary_ops():
    """A binary form wrong by its cosine for one op (a wrong layout) is recorded wrong for every op
    of that form; one wrong by its max error alone (fp16 rounding of a one-element SUB near 0, as
    the near-threshold pass found) stays that op's: a MUL of the same form is not flagged for it."""
    from gpucompat.calibrate.grid import across_binary_ops

    def entry(cosine=1.0, max_error=0.0, wrong=False):
        return {"fp32": dict(RIGHT), "fp16": {**RIGHT, "cosine": cosine, "max_error": max_error, "wrong": wrong}}

    table = across_binary_ops({"SUB runtime [1,1] with constant []": entry(max_error=0.0132, wrong=True),
                               "MUL runtime [1,1] with constant []": entry(),
                               "ADD runtime [n] with constant [n,1,n]": entry(0.52, 0.9, True),
                               "MAXIMUM runtime [n] with constant [n,1,n]": entry()})
    assert not table["MUL runtime [1,1] with constant []"]["fp16"]["wrong"]
    spread = table["MAXIMUM runtime [n] with constant [n,1,n]"]["fp16"]
    assert spread["wrong"] and "the same form of ADD" in spread["example"]
