"""The README a new user meets: its rule list is generated from the rule registry and its table of
output formats from the commands' --format choices, its links and picture exist, and its first
command works as written.

Regenerate both with `python tests/test_readme.py`."""

import os
import re
import sys

from cli import gpucompat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")


def block(name: str) -> re.Pattern:
    """A generated part of the README, between `<!-- NAME:start ... -->` and `<!-- NAME:end -->`."""
    return re.compile(rf"(<!-- {name}:start[^\n]*-->\n)(.*?)(<!-- {name}:end -->)", re.S)


def rules_table() -> str:
    """The rule list as a markdown table, from the registry."""
    from gpucompat.rules.lint import all_rules

    rows = [f"| `{r.code}` | {r.name} | {r.severity} | {r.summary} |" for r in all_rules()]
    return "| code | name | severity | what it finds |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"


def formats_table() -> str:
    """Each command's --format choices (gpucompat/output/renderers.py) as a markdown table."""
    import typer

    from gpucompat.cli import app

    rows = []
    for name, command in typer.main.get_command(app).commands.items():
        for param in command.params:
            if param.name == "output_format":
                choices = param.metavar.strip("<>").split("|")
                rows.append(f"| `gpucompat {name}` | {', '.join(f'`{c}`' for c in choices)} |")
    return "| command | `--format` |\n|---|---|\n" + "\n".join(rows) + "\n"


GENERATED = {"rules": rules_table, "formats": formats_table}


def readme() -> str:
    with open(README, encoding="utf-8") as f:
        return f.read()


def test_rule_list_and_formats_are_generated():
    for name, table in GENERATED.items():
        found = block(name).search(readme())
        assert found, f"README lost its {name}:start / {name}:end markers"
        assert found.group(2) == table(), f"run `python tests/test_readme.py` to regenerate the {name} table"


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
    for name, table in GENERATED.items():
        text = block(name).sub(lambda m, table=table: m.group(1) + table() + m.group(3), text)
    with open(README, "w", encoding="utf-8") as f:
        f.write(text)
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


def test_the_python_snippets_check_part_names_why_every_cpu_op_is_there(models, tmp_path):
    """The README's From Python snippet, up to its fix (which the fix tests cover), run as written
    on a model with a rejected op and a supported op left on the CPU: every line says why."""
    import subprocess

    with open(README) as f:
        text = f.read()
    section = text[text.index("## From Python"):text.index("## Pre-commit hook")]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code = code[:code.index("doc = gpucompat.fix")]
    (tmp_path / "model.tflite").write_bytes(models.bytes("gather_nd_island"))  # CONV_2D spare, GATHER_ND rejected
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()[1:]
    assert len(lines) == 2 and "None" not in r.stdout
    assert lines[0].startswith("0 CONV_2D supported") and lines[1].startswith("1 GATHER_ND no GPU implementation")
