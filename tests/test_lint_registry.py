"""The rule registry: stable codes, the same doc headings everywhere, and the commands that show
them (`rules`, `explain`, `opcode`)."""

import re

from cli import gpucompat, on_a_terminal
from gpucompat.rules.lint import DOC_HEADINGS, SEVERITIES, all_rules


def test_every_rule_is_documented_with_the_same_headings():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules) and len({r.name for r in rules}) == len(rules)
    for r in rules:
        assert re.fullmatch(r"(GPU0|PRT1|PERF2|IO3|PREC4|HYG5|DEV6)\d\d", r.code), r.code
        assert r.severity in SEVERITIES
        assert re.findall(r"^## (.+)$", r.doc, re.M) == list(DOC_HEADINGS), r.code


def test_rules_and_explain():
    r = gpucompat("rules")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == len(all_rules())
    r = gpucompat("explain", "gpu001")
    assert r.returncode == 0 and r.stdout.startswith("# GPU001 unsupported-op (error)") and "## How to fix" in r.stdout
    assert gpucompat("explain", "channel-padding-waste").stdout.startswith("# PERF202")
    r = gpucompat("explain", "XYZ999")
    assert r.returncode == 2 and "gpucompat rules" in r.stderr


def test_explain_renders_the_markdown_on_a_terminal():
    import os
    import sys

    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    drawn, _, code = on_a_terminal([sys.executable, "-m", "gpucompat", "explain", "GPU001"], "stdout", env)
    assert code == 0
    text = re.sub(r"\x1b\[[0-9;]*m", "", drawn)
    lines = [line.strip() for line in text.splitlines()]
    assert "#" not in "".join(line[:2] for line in lines)  # no markdown heading marks
    assert "How to fix" in lines and "GPU001 unsupported-op (error)" in lines


def test_opcode_names_the_runtime_number():
    r = gpucompat("opcode", "107")  # "op code #107" in the runtime's warning
    assert r.returncode == 0 and r.stdout.startswith("op code #107 = GATHER_ND")
    assert re.search(r"gpu-current +not supported", r.stdout)
    r = gpucompat("opcode", "conv_2d")
    assert r.stdout.startswith("op code #3 = CONV_2D") and re.search(r"gpu-current +supported", r.stdout)
    assert gpucompat("opcode", "100000").returncode == 2
