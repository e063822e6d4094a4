"""What check says about LSTM: litert-mldrift takes the basic kernel and cannot load a model with
variable tensors (every full-kernel LSTM has its states as variables); PREC402 flags a delegated
basic LSTM whose units are not a multiple of 4, which LiteRT's GPU accelerator computes wrongly
(the fidelity suite compares these predictions with the accelerator itself)."""

import json

import pytest

from cli import gpucompat


def check_json(path, *args):
    r = gpucompat("check", path, "--format", "json", *args)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["models"][0]


@pytest.mark.parametrize("name, units", [("x_lstm_basic_2x5x3", 3), ("x_lstm_basic_1x7x9", 9),
                                         ("x_lstm_basic_1x3x4", 4)])
@pytest.mark.parametrize("profile", ["gpu-current", "litert-mldrift"])
def test_prec402_flags_basic_lstm_units_off_the_4_channel_slices(models, name, units, profile):
    rec = check_json(models.path(name), "--profile", profile)
    assert [o["placement"] for o in rec["ops"]] == ["gpu"]
    flagged = [f for f in rec["findings"] if f["code"] == "PREC402"]
    assert len(flagged) == (1 if units % 4 else 0)
    if flagged:
        assert flagged[0]["severity"] == "error" and f"{units} units" in flagged[0]["message"]


def test_litert_cannot_load_a_model_with_variable_tensors(models):
    rec = check_json(models.path("x_lstm_full_plain"), "--profile", "litert-mldrift")
    failure = rec["summary"]["failure"]
    assert "variable tensor" in failure and "'output_state'" in failure
    assert [o["placement"] for o in rec["ops"]] == ["cpu"]
    # the classic delegate has no such loader: gpu-current takes the full kernel
    assert [o["placement"] for o in check_json(models.path("x_lstm_full_plain"))["ops"]] == ["gpu"]


def test_a_batched_full_lstm_fails_the_classic_delegation_at_parse(models):
    # common/lstm_parser.cc ParseLSTMAttributes: a cell state with batch != 1 is an error while the
    # GPU graph is built, which removes the delegate from the whole model.
    rec = check_json(models.path("x_lstm_full_batch2"))
    assert rec["summary"]["delegation_fails"] and [o["placement"] for o in rec["ops"]] == ["cpu"]
    op = rec["ops"][0]
    assert op["layer"] == "parse" and "batch 2" in op["reason"], op
