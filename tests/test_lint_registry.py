"""The rule registry: stable codes, one module per rule found by discovery, the same doc headings
everywhere, and the commands that show them (`rules`, `explain`, `opcode`)."""

import re
import sys

import pytest

from cli import gpucompat, on_a_terminal
from gpucompat.rules.lint import DOC_HEADINGS, SEVERITIES, all_rules, is_rule_module, rule


def test_every_rule_is_documented_with_the_same_headings():
    rules = all_rules()
    assert len({r.code for r in rules}) == len(rules) and len({r.name for r in rules}) == len(rules)
    for r in rules:
        assert re.fullmatch(r"(GPU0|PRT1|PERF2|IO3|PREC4|HYG5|DEV6)\d\d", r.code), r.code
        assert r.severity in SEVERITIES
        assert re.findall(r"^## (.+)$", r.doc, re.M) == list(DOC_HEADINGS), r.code


def test_each_rule_is_one_module_of_its_family_package():
    """rules/lint/<family>/<code>_<name>.py, whose docstring is the summary and the documentation;
    the registry lists the rules in code order (the order findings are reported in)."""
    rules = all_rules()
    assert [r.code for r in rules] == sorted(r.code for r in rules)
    families: dict[str, set[str]] = {}
    for r in rules:
        package, module = r.run.__module__.rsplit(".", 1)
        assert module == f"{r.code.lower()}_{r.name.replace('-', '_')}", r.code
        assert package.rsplit(".", 1)[0] == "gpucompat.rules.lint", r.code
        families.setdefault(package, set()).add(r.family)
        doc = sys.modules[r.run.__module__].__doc__
        assert doc.startswith(r.summary.split()[0]) and doc.endswith(r.doc) and r.doc.startswith("## What it finds")
    assert all(len(codes) == 1 for codes in families.values()), families


def test_only_code_named_modules_are_rules():
    assert is_rule_module("prec403_fp16_overflow.py") and is_rule_module("io301_rgb_input.py")
    assert not any(map(is_rule_module, ["fp16.py", "families.py", "__init__.py", "prec40_x.py", "prec403.py"]))


def test_a_code_registered_twice_is_refused():
    existing = all_rules()[0]
    with pytest.raises(ValueError, match=f"{existing.code} is registered twice"):
        rule(existing.code, name="another", severity="info")(lambda result, analyses: [])


def test_perf202_documents_its_threshold():
    from gpucompat.rules.lint.cost.perf202_channel_padding_waste import WASTE_THRESHOLD

    (doc,) = [r.doc for r in all_rules() if r.code == "PERF202"]
    assert f"at least {WASTE_THRESHOLD:.0%} of the elements" in doc


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
