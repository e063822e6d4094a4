"""Fuzz-campaign regressions of `check`, its output formats, the HTML report and the IR reader
(issue 8; docs/robustness.md), each with its minimised model built with the object API."""

import json
import os
import sys

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as fb

from gpucompat import ir
from gpucompat.errors import ModelError

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz import runner  # noqa: E402
from fuzz.seeds import record_of, single_graph  # noqa: E402

ESCAPES = ["\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[2J\x1b[H"]  # cases 2561, 7368
LINE_BREAKERS = ["\t\x0b\x0c", "a\u2028b", "x\x1ey\x85z"]  # cases 4024, 6321: str.splitlines() breaks there


def _custom_model(custom_code: str) -> bytes:
    """x -> ADD(x, x) -> CUSTOM(custom_code) -> y: the custom op's code reaches every format."""
    b, g = single_graph()
    x, a, y = g.tensor("x", (1, 4, 4, 4)), g.tensor("a", (1, 4, 4, 4)), g.tensor("y", (1, 4, 4, 4))
    g.op("ADD", [x, x], [a], record_of(fb.AddOptionsT))
    g.op("CUSTOM", [a], [y])
    b.model.operatorCodes[-1].customCode = custom_code.encode()
    g.io([x], [y])
    return b.finish()


def _conv_model(options) -> bytes:
    """x -> CONV_2D(w, b) -> y with the given options record (None: no options)."""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 4, 4, 2)), g.tensor("y", (1, 4, 4, 2))
    w, bias = g.const("w", np.ones((2, 1, 1, 2), np.float32)), g.const("b", np.zeros(2, np.float32))
    g.op("CONV_2D", [x, w, bias], [y], options)
    g.io([x], [y])
    return b.finish()


def _cumsum_model(inputs: list[int] | None = None, options=None) -> bytes:
    """x -> CUMSUM(x, axis) -> y (indices: x 0, axis 1, y 2)."""
    b, g = single_graph()
    x, axis, y = g.tensor("x", (1, 8)), g.const("axis", np.array([1], np.int32)), g.tensor("y", (1, 8))
    g.op("CUMSUM", inputs if inputs is not None else [x, axis], [y], options)
    g.io([x], [y])
    return b.finish()


def _run(*argv: str) -> runner.Outcome:
    return runner.run_one(list(argv), timeout_s=60)


def _write(tmp_path, data: bytes) -> str:
    p = tmp_path / "m.tflite"
    p.write_bytes(data)
    return str(p)


@pytest.mark.parametrize("code", ESCAPES)
@pytest.mark.parametrize("backend", [(), ("--backend", "gl", "--no-quant", "--max-delegated-partitions", "3")])
def test_escape_codes_in_names_are_shown_escaped(tmp_path, code, backend):
    """seed 0 cases 2561 and 7368: a custom op code holding terminal escape sequences was printed
    raw by the terminal summary (op column, what-if list, findings)."""
    out = _run("check", _write(tmp_path, _custom_model(code)), *backend)
    assert out.exit_code in (0, 1), out
    assert "\x1b" not in out.stdout + out.stderr
    assert code.encode("unicode_escape").decode() in out.stdout  # shown, as its escape


def test_rich_markup_in_names_is_shown_as_text(tmp_path):
    """Brackets in a model's names are text, not rich markup (a [link=...] tag would become an
    OSC 8 escape on a terminal)."""
    code = "[link=http://x]op[/link][bold]"
    out = _run("check", _write(tmp_path, _custom_model(code)))
    assert out.exit_code in (0, 1), out
    assert f"accepting the 1 {code} node" in out.stdout


@pytest.mark.parametrize("code", LINE_BREAKERS)
def test_github_output_is_only_workflow_commands(tmp_path, code):
    """seed 0 cases 4024 and 6321: a vertical tab, form feed or U+2028 in a custom op code split a
    GitHub annotation into lines that are not workflow commands."""
    out = _run("check", _write(tmp_path, _custom_model(code)), "--format", "github")
    assert out.exit_code in (0, 1), out
    lines = out.stdout.splitlines()
    assert lines and all(line.startswith("::") for line in lines), lines
    assert any("custom op" in line for line in lines)


def test_cumsum_without_its_axis_is_refused(tmp_path):
    """seed 0 case 8184: a CUMSUM whose axis operand is optional (-1) crashed the GPU rules
    (AttributeError on None); cumsum.cc reads both operands, so the reader refuses it."""
    with pytest.raises(ModelError, match=r"operator 0 \(CUMSUM\) lacks input 1, which its kernel requires"):
        ir.from_bytes(_cumsum_model(inputs=[0, -1]))
    path = _write(tmp_path, _cumsum_model(inputs=[0, -1]))
    out = _run("check", path, "--format", "sarif")
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.exit_code == 2 and len(lines) == 1 and path in lines[0] and "internal error" not in lines[0], out
    json.loads(out.stdout)


def test_an_op_without_its_first_operand_is_refused(tmp_path):
    """seed 777 case 97: a RESHAPE whose data operand is optional (-1) crashed the what-if
    analysis (AttributeError on None); every builtin kernel but a few stateful ones reads its
    first operand, so the reader refuses it, for any op."""
    b, g = single_graph()
    x, shape, y = g.tensor("x", (1, 8)), g.const("shape", np.array([8], np.int32)), g.tensor("y", (8,))
    g.op("TANH", [x], [g.tensor("t", (1, 8))])
    g.op("RESHAPE", [-1, shape], [y])
    g.io([x], [y])
    path = _write(tmp_path, b.finish())
    with pytest.raises(ModelError, match=r"operator 1 \(RESHAPE\) lacks input 0, which its kernel requires"):
        ir.load(path)
    out = _run("check", path)
    assert out.exit_code == 2 and "internal error" not in out.stderr and "lacks input 0" in out.stderr, out
    # seed 2026 case 507: the same op with no operands at all
    b, g = single_graph()
    x, y = g.tensor("x", (1, 8)), g.tensor("y", (8,))
    g.op("TANH", [x], [g.tensor("t", (1, 8))])
    g.op("RESHAPE", [], [y])
    g.io([x], [y])
    with pytest.raises(ModelError, match=r"operator 1 \(RESHAPE\) lacks input 0"):
        ir.from_bytes(b.finish())


def test_cumsum_without_options_loads():
    """CUMSUM's options (exclusive, reverse) default to false when absent: still a valid model."""
    assert ir.from_bytes(_cumsum_model()).graphs[0].ops[0].options is None


def test_metadata_name_not_utf8_reports(tmp_path):
    """seed 0 case 7711: a metadata entry whose name is not valid UTF-8 crashed `report`
    (UnicodeDecodeError); the name is shown with replacement characters."""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 4)), g.tensor("y", (1, 4))
    g.op("RELU", [x], [y])
    g.io([x], [y])
    entry = fb.MetadataT()
    entry.name, entry.buffer = b"\xae\xfc<script>alert(1)</script>", b.buffer(b"meta")
    b.model.metadata = [entry]
    path = _write(tmp_path, b.finish())
    assert "\ufffd\ufffd<script>alert(1)</script>" in ir.from_bytes(open(path, "rb").read()).metadata()
    html = tmp_path / "r.html"
    out = _run("report", path, "-o", str(html))
    assert out.exit_code in (0, 1), out
    page = html.read_text()
    assert "\ufffd\ufffd&lt;script&gt;" in page and "<script>alert(1)" not in page


def test_options_of_another_table_are_refused():
    """seed 0 cases 7558 (and 5019 in verify's family): CONV_2D carrying DensifyOptions crashed
    every reader of its strides; the runtime's builtin_options_as_Conv2DOptions() reads none."""
    with pytest.raises(ModelError, match=r"operator 0 \(CONV_2D\) has builtin options of type DensifyOptions, "
                                         r"but the op reads Conv2DOptions"):
        ir.from_bytes(_conv_model(fb.DensifyOptionsT()))
    with pytest.raises(ModelError, match="has builtin options of type Conv2DOptions, but the op reads CumsumOptions"):
        ir.from_bytes(_cumsum_model(options=fb.Conv2DOptionsT()))


def test_strided_op_without_options_is_refused():
    """seed 0 cases 7995 and 8832: a CONV_2D without options (strides 0 at runtime) crashed fix."""
    with pytest.raises(ModelError, match=r"operator 0 \(CONV_2D\) has no Conv2DOptions"):
        ir.from_bytes(_conv_model(None))
    ok = record_of(fb.Conv2DOptionsT, padding=fb.Padding.SAME, strideW=1, strideH=1, dilationWFactor=1,
                   dilationHFactor=1)
    assert ir.from_bytes(_conv_model(ok)).graphs[0].ops[0].options.strideH == 1


def test_strided_slice_bounds_in_a_short_buffer_are_judged(tmp_path):
    """seed 1 cases 1329, 2010: a constant `begin` whose buffer is shorter than its shape (the
    reader gives no values for it) crashed litert-mldrift's unclamped-slice rule (AttributeError
    on None); the rule now leaves such a slice to the other checks."""
    b, g = single_graph()
    x, y = g.tensor("x", (1, 5, 7, 3)), g.tensor("y", (1, 4, 4, 3))
    begin = g.tensor("begin", (4,), fb.TensorType.INT32, np.zeros(3, np.int32))  # 12 bytes for 4 values
    end, strides = g.const("end", np.array([1, 4, 4, 3], np.int32)), g.const("strides", np.ones(4, np.int32))
    g.op("STRIDED_SLICE", [x, begin, end, strides], [y], record_of(fb.StridedSliceOptionsT))
    g.io([x], [y])
    out = _run("check", _write(tmp_path, b.finish()), "--profile", "litert-mldrift")
    assert out.exit_code in (0, 1, 2) and "internal error" not in out.stderr, out
