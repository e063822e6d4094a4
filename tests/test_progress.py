"""Progress on long steps: a spinner line on stderr when stderr is a terminal (a pty here), erased
when the step ends; nothing at all on stderr when it is a pipe, and the same result on stdout."""

import subprocess
import sys

import pytest

from cli import on_a_terminal

pytestmark = pytest.mark.opencl  # a cold verify builds the executor's OpenCL programs


def verify_args(models, cache_dir) -> list[str]:
    """A cold verify (an empty program cache): the kernel builds take seconds."""
    return [sys.executable, "-m", "gpucompat", "verify", models.path("conv_relu"), "--runs", "2",
            "--cache-dir", str(cache_dir), "--format", "json"]


def test_a_terminal_sees_what_runs_and_the_line_is_erased(models, tmp_path):
    drawn, out, code = on_a_terminal(verify_args(models, tmp_path / "cold"))
    assert code == 0, drawn
    assert "building the executor's programs" in drawn
    assert "comparing with the reference interpreter: run 2 of 2" in drawn
    assert drawn.endswith("\x1b[2K") and "\x1b[?25h" in drawn  # the last thing drawn erases the line; cursor back
    assert '"passed": true' in out


def test_a_narrow_terminal_gets_one_row_a_line_never_wrapped(models, tmp_path):
    import os
    import re

    drawn, out, code = on_a_terminal(verify_args(models, tmp_path / "cold"), env={**os.environ, "COLUMNS": "40"})
    assert code == 0, drawn
    visible = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", drawn)  # every cursor move or erase ends a row
    rows = [row for part in visible.split("\n") for row in part.split("\r") if row.strip()]
    assert rows and max(len(row) for row in rows) <= 40, max(rows, key=len)
    assert any(row.rstrip().endswith("…") for row in rows)  # "building the executor's programs" is cut


def test_a_pipe_gets_nothing_extra(models, tmp_path):
    r = subprocess.run(verify_args(models, tmp_path / "cold"), capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == ""
    assert '"passed": true' in r.stdout
