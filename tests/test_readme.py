"""The README a new user meets: its rule list is generated from the rule registry, its links and
picture exist, and its first command works as written.

Regenerate the rule list with `python tests/test_readme.py`."""

import os
import re
import sys

from cli import gpucompat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
BLOCK = re.compile(r"(<!-- rules:start[^\n]*-->\n)(.*?)(<!-- rules:end -->)", re.S)


def rules_table() -> str:
    """The rule list as a markdown table, from the registry."""
    from gpucompat.rules.lint import all_rules

    rows = [f"| `{r.code}` | {r.name} | {r.severity} | {r.summary} |" for r in all_rules()]
    return "| code | name | severity | what it finds |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"


def readme() -> str:
    with open(README, encoding="utf-8") as f:
        return f.read()


def test_rule_list_is_generated_from_the_registry():
    block = BLOCK.search(readme())
    assert block, "README lost its rules:start / rules:end markers"
    assert block.group(2) == rules_table(), "run `python tests/test_readme.py` to regenerate the rule list"


def test_links_and_picture_exist():
    for target in re.findall(r"\]\(([^)#]+)\)", readme()):
        if not target.startswith("http"):
            assert os.path.exists(os.path.join(ROOT, target)), target


def test_setup_commands_are_there_and_the_check_works():
    text = readme()
    assert "pip install . && gpucompat check examples/models/" in text
    assert "pip install '.[dev]' && pytest" in text
    r = gpucompat("check", os.path.join(ROOT, "examples", "models"))
    # classifier is taken whole; segmenter's SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND stay on the CPU
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "classifier.tflite" in r.stdout and "segmenter.tflite" in r.stdout and "#38" in r.stdout


if __name__ == "__main__":
    text = readme()
    with open(README, "w", encoding="utf-8") as f:
        f.write(BLOCK.sub(lambda m: m.group(1) + rules_table() + m.group(3), text))
    sys.exit(0)


def test_readme_and_diff_help_agree_on_the_cost_threshold_default():
    import click
    import typer

    from gpucompat.cli import app

    diff = typer.main.get_command(app).commands["diff"]
    [param] = [p for p in diff.params if p.name == "cost_threshold"]
    said = re.search(r"costs \(padding, bytes\) are\s+#?\s*printed, and fail only with --cost-threshold \(no default",
                     readme())
    assert param.default is None and said, "README's diff comment and `diff --help` must agree"
    assert "by default costs are printed only" in param.get_help_record(click.Context(diff))[1]
