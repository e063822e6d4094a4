"""The fuzz campaign in the suite: its seed models are valid, its judge catches each kind of
failure, and a seeded subset of mutated models goes through every command without breaking the
contract (docs/robustness.md)."""

import os
import signal
import sys
import time

import numpy as np
import pytest

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fuzz import campaign, judge, runner, seeds  # noqa: E402

SUBSET_SEED, SUBSET_CASES = 7, 100


@pytest.mark.parametrize("name", sorted(seeds.SEEDS))
def test_seed_runs_on_the_reference_interpreter(name):
    from ai_edge_litert.interpreter import Interpreter

    interpreter = Interpreter(model_content=seeds.SEEDS[name]())
    interpreter.allocate_tensors()
    for d in interpreter.get_input_details():
        interpreter.set_tensor(d["index"], np.ones(d["shape"], d["dtype"]))
    interpreter.invoke()
    assert interpreter.get_output_details()


def test_case_is_a_function_of_seed_and_number():
    corpus = seeds.corpus()
    a, b = (campaign.draw(3, 41, corpus, campaign.COMMANDS) for _ in range(2))
    assert (a.seed_model, a.mutation, a.command, a.data) == (b.seed_model, b.mutation, b.command, b.data)
    assert campaign.draw(3, 42, corpus, campaign.COMMANDS).data != a.data


def _judged(outcome, tmp_path, stdout_format="text"):
    model = tmp_path / "model.tflite"
    model.write_bytes(b"model")
    return judge.failures(outcome, stdout_format=stdout_format, rss_bound_mb=1e9, model_before=b"model",
                          model_path=str(model), html_path=None)


def _outcome(code=2, stdout="", stderr="gpucompat: x.tflite: bad\n", **kw):
    fields = dict(exit_code=code, signal=None, timed_out=False, stdout=stdout, stderr=stderr,
                  peak_rss_mb=10.0, seconds=0.1)
    fields.update(kw)
    return runner.Outcome(**fields)


@pytest.mark.parametrize("outcome, kind", [
    (_outcome(), None),
    (_outcome(code=0, stderr=""), None),
    (_outcome(code=1, stderr="Traceback (most recent call last):\n  File x\nKeyError: 1\n"), "traceback"),
    (_outcome(stderr="gpucompat: internal error: KeyError: 1\n"), "internal error"),
    (_outcome(stderr="gpucompat: a\nsecond line\n"), "exit 2 with 2 stderr lines"),
    (_outcome(stderr=""), "exit 2 with 0 stderr lines"),
    (_outcome(code=None, signal=11), "crash (signal 11)"),
    (_outcome(code=None, timed_out=True), "hang"),
    (_outcome(code=3), "exit code 3"),
    (_outcome(code=0, stdout="\x1b[2J", stderr=""), "escape sequence from the model reached the terminal"),
    (_outcome(code=0, stderr="x.py:3: RuntimeWarning: overflow encountered\n"), "python warning on stderr"),
    (_outcome(stderr="INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\ngpucompat: bad\n"), None),
])
def test_judge_flags_each_broken_clause(tmp_path, outcome, kind):
    assert _judged(outcome, tmp_path) == ([kind] if kind else [])


def test_judge_checks_machine_output(tmp_path):
    assert _judged(_outcome(code=2, stdout='{"models": []}', stderr=""), tmp_path, "json") == []
    assert _judged(_outcome(code=0, stdout="{not json", stderr=""), tmp_path, "json") == ["stdout is not JSON"]
    assert _judged(_outcome(code=1, stdout="::error::x\ninjected\n", stderr=""), tmp_path, "github") == \
        ["a line of GitHub output is not a workflow command"]
    assert _judged(_outcome(code=2, stdout="wrote r.html\n", stderr=""), tmp_path, "html") == \
        ["exit 2 with 0 stderr lines"]  # the page that would carry the error was not written


def test_judge_notices_a_changed_input_and_a_leftover_temporary(tmp_path):
    (tmp_path / ".gpucompat-123.tmp").write_bytes(b"partial")
    model = tmp_path / "model.tflite"
    model.write_bytes(b"other")
    found = judge.failures(_outcome(), stdout_format="text", rss_bound_mb=1e9, model_before=b"model",
                           model_path=str(model), html_path=None)
    assert found == ["input model changed", "temporary file left behind"]


@pytest.mark.parametrize("behaviour, check", [
    (lambda: time.sleep(30), lambda o: o.timed_out and o.exit_code is None),
    (lambda: os.kill(os.getpid(), signal.SIGSEGV), lambda o: o.signal == signal.SIGSEGV),
    (lambda: bytearray(3 << 30), lambda o: o.exit_code == runner.EXIT_ESCAPED and "MemoryError" in o.stderr),
])
def test_runner_contains_hangs_crashes_and_memory(monkeypatch, behaviour, check):
    import gpucompat.cli

    monkeypatch.setattr(gpucompat.cli, "main", behaviour)
    outcome = runner.run_one(["check", "x"], timeout_s=2, memory_cap_mb=1024)
    assert check(outcome), outcome


def test_seeded_subset_keeps_the_contract():
    corpus = seeds.corpus()
    cases = [campaign.draw(SUBSET_SEED, n, corpus, campaign.COMMANDS) for n in range(SUBSET_CASES)]
    records = campaign.run_cases(cases, parallel=2)
    assert len(records) == SUBSET_CASES
    failed = [r for r in records if r["failures"]]
    assert not failed, "\n".join(
        f"python -m fuzz.campaign --seed {SUBSET_SEED} --case {r['case']}: {r['failures']} {r['stderr']}"
        for r in failed)
    assert {r["command"] for r in records} == {name for name, _, _ in campaign.COMMANDS}
