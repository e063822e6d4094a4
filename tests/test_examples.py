"""The numbered examples in examples/ run as a user runs them, and say what their docstrings promise."""

import os
import subprocess
import sys

from not_installed import pythonpath_without

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def example(name: str, *args: str) -> str:
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], capture_output=True, text=True,
                       timeout=600, cwd=os.path.dirname(EXAMPLES))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_every_example_is_tested():
    numbered = sorted(f for f in os.listdir(EXAMPLES) if f[:2].isdigit() and f.endswith(".py"))
    assert numbered == ["01_build_model.py", "02_check_api.py", "03_fix.py", "04_verify.py", "05_report.py"]


def test_01_build_model(tmp_path):
    out = example("01_build_model.py", str(tmp_path))
    assert os.path.exists(tmp_path / "island.tflite")
    # conv | GATHER_ND | mul add tanh: the larger GPU run (3 ops) is delegated, GATHER_ND is op code 107
    assert "3 on GPU (60%)" in out and "#107" in out and "exited with 1" in out


def test_01_without_tensorflow_says_what_to_install(tmp_path):
    path = pythonpath_without(tmp_path, "tensorflow")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "01_build_model.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": path})
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and "pip install '.[dev]'" in r.stderr


def test_02_check_api():
    out = example("02_check_api.py")
    # segmenter: CONV | STB | DWCONV | BTS | RELU6 CONV CONV RESIZE; STB and BTS are rejected, the
    # largest GPU run (#4-7) is the one delegated.
    assert "4 of 8 ops on the GPU, 1 delegated partition(s)" in out
    placements = [line.split()[2] for line in out.splitlines() if line.strip().startswith("#")]
    assert placements == ["CPU"] * 4 + ["GPU"] * 4
    assert "what if:" in out


def test_03_fix(tmp_path):
    out = example("03_fix.py", str(tmp_path))
    # folding STB/BTS into the dilation leaves 6 supported ops in one partition
    assert os.path.exists(tmp_path / "segmenter_fixed.tflite")
    assert "applied fold-space-to-batch (equivalent)" in out
    assert "after: 6 of 6 (fully delegated)" in out


def test_04_verify():
    out = example("04_verify.py")
    assert "-> pass" in out and out.strip().endswith("passed")


def test_05_report(tmp_path):
    out = example("05_report.py", str(tmp_path))
    html = (tmp_path / "report.html").read_text()
    assert "wrote" in out and "Before and after" in html and "segmenter_fixed.tflite" in html
