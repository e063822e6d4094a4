"""Every rule code, raised on the smallest model that shows it and not raised on its healthy twin
(tests/models_rules.py: written with tests/irbuild.py, no converter). A registered code without a
pair here fails `test_every_registered_code_has_a_pair`.

The family tests (test_device_reports.py, test_fp16_precision.py, test_wrong_forms.py, ...) check
the messages and the rewrites on more realistic models; this one checks that each rule fires where
it should and stays quiet on the twin."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import models_rules as mr
from gpucompat.pipeline import Task, check_one
from gpucompat.rules.lint import all_rules
from irbuild import IRModel


@dataclass(frozen=True)
class Case:
    """A code's pair: `build(True)` raises it, `build(False)` does not; checked under `profile`,
    with `inputs(raises)` as `--inputs` when given and `families` as `--device-family`; `about`
    checks what the positive finding says."""

    build: Callable[[bool], IRModel]
    profile: str = "gpu-current"
    inputs: Callable[[bool], dict] | None = None
    families: tuple[str, ...] = ()
    about: Callable[[list[dict]], bool] = field(default=lambda found: True)


def filled(shape, value: Callable[[bool], float]) -> Callable[[bool], dict]:
    """Inputs of one input `x` of `shape`, every element `value(raises)`."""
    return lambda raises: {"x": np.full(shape, value(raises), np.float32)}


def says(*parts: str) -> Callable[[list[dict]], bool]:
    """True when the first finding's message has every part."""
    return lambda found: all(p in found[0]["message"] for p in parts)


ALL = ("adreno", "mali", "apple", "webgpu")
MLDRIFT = "litert-mldrift"

CASES: dict[str, Case] = {
    "GPU001": Case(mr.unsupported_between, about=says("GATHER_ND", "run on the CPU")),
    "GPU002": Case(lambda raises: mr.binary("SUB", same_input=raises), about=says("whole delegation fails")),
    "GPU003": Case(mr.reshape_by, about=says("nothing in this subgraph is delegated")),
    "GPU004": Case(mr.fp16_weights, about=says("1 constant fp16 DEQUANTIZE node(s)", "delegated with the graph")),
    "GPU005": Case(lambda raises: mr.with_constant("ADD", [4, 8] if raises else mr.SHAPE,
                                                   np.ones((1, 4, 8) if raises else 8, np.float32),
                                                   [1, 4, 8] if raises else mr.SHAPE),
                   MLDRIFT, about=says("[ADD runtime [n,n] with constant [1,n,n]]", "computes wrong values at fp32")),
    "GPU006": Case(lambda raises: mr.with_constant("ADD", mr.SHAPE, np.ones(3 if raises else 8, np.float32),
                                                   mr.SHAPE),
                   about=says("cannot be prepared at the stored input shapes")),
    # a REDUCE_PROD of 1024 values into each output: the grid measures short ones only
    "GPU007": Case(lambda raises: mr.with_constant("REDUCE_PROD", [1, 32, 32, 8], np.asarray([1, 2], np.int32),
                                                   [1, 8]) if raises else mr.unary("TANH"),
                   MLDRIFT, about=says("REDUCE_PROD rank 4 over axes 1,2 (long)", "never measured")),
    "GPU008": Case(mr.sparse_weights, MLDRIFT, about=says("op#2 CONV_2D is delegated", "XNNPACK never writes")),
    # the dropped partition is named by its ops (two dropped partitions never read alike)
    "PRT101": Case(mr.unsupported_between, about=says("of 1 op(s) (#2 TANH) stays on the CPU")),
    # the first TANH alone is delegated (the largest GPU island, first of two of one op); GATHER_ND and
    # the second TANH make the CPU partition after it
    "PRT102": Case(mr.unsupported_between, about=says("1 of 3 ops delegated, yielding 2 partitions")),
    "PERF201": Case(lambda raises: mr.with_constant("TRANSPOSE", mr.SHAPE, np.asarray([0, 2, 1, 3], np.int32),
                                                    mr.SHAPE) if raises else mr.unary("TANH"),
                    about=says("TRANSPOSE", "bytes per inference")),
    # C = 5 is stored as 8: 3 of 8 elements are padding
    "PERF202": Case(lambda raises: mr.unary("TANH", [1, 4, 4, 5 if raises else 8]), about=says("38%", "(C=5)")),
    "IO301": Case(lambda raises: mr.unary("TANH", [1, 4, 4, 3 if raises else 4]), about=says("has 3 channels")),
    "IO302": Case(mr.quantized_add,
                  about=lambda found: {("into" in f["message"], "out of" in f["message"]) for f in found}
                  == {(True, False), (False, True)}),
    "PREC401": Case(mr.quantized_add, about=says("run as float emulation")),
    "PREC402": Case(lambda raises: mr.basic_lstm(3 if raises else 4), about=says("has 3 units, not a multiple of 4")),
    "PREC403": Case(lambda raises: mr.squared(True), inputs=filled(mr.SHAPE, lambda raises: 1000.0 if raises else 1.0),
                    about=says("reaches 1e+06", "a square of values up to 1e+03")),
    # MEAN over 32 x 32 values of 100: partial sums reach 102400
    "PREC404": Case(lambda raises: mr.summed(32, "MEAN"),
                    inputs=filled([1, 32, 32, 8], lambda raises: 100.0 if raises else 1.0),
                    about=says("adds up to 1.02e+05")),
    "PREC405": Case(lambda raises: mr.scaled(1e-9 if raises else 1e-3), inputs=filled(mr.SHAPE, lambda raises: 1.0),
                    about=says("never above 1e-09")),
    "PREC406": Case(mr.sum_of_squares, about=says("sums the squares of op#0 MUL")),
    "PREC407": Case(mr.exp_of_logits, about=says("EXP", "without max-subtraction")),
    "PREC408": Case(lambda raises: mr.unary("ELU", [8] if raises else mr.SHAPE), MLDRIFT,
                    about=says("[ELU rank 1]", "at its fp16 default")),
    "PREC409": Case(mr.two_class_classifier, inputs=filled([1, 1], lambda raises: 1.0),
                    about=says("class 1 becomes 0")),
    "PREC410": Case(lambda raises: mr.masked_attention(-np.inf if raises else -30000.0), MLDRIFT,
                    about=says("SOFTMAX reads a mask filled with -inf", "as NaN")),
    "HYG501": Case(mr.dead_branch, about=says("LOGISTIC")),
    "DEV601": Case(mr.residual_linear, MLDRIFT, families=("mali",), about=says("LiteRT#9277", "unverified here")),
    "DEV602": Case(lambda raises: mr.depth_to_space(4 if raises else 1), MLDRIFT, families=("adreno",),
                   about=says("batch 4", "LiteRT#8459")),
    "DEV603": Case(lambda raises: mr.attention(3 if raises else 4), MLDRIFT, families=("adreno",),
                   about=says("LiteRT#8619")),
    "DEV604": Case(lambda raises: mr.summed(32 if raises else 8), MLDRIFT, families=ALL,
                   about=says("1024 elements", "LiteRT#9249")),
    "DEV605": Case(lambda raises: mr.attention(4) if raises else mr.unary("SOFTMAX", [1, 8], mr.softmax_options()),
                   MLDRIFT, families=("apple",), about=says("FLOAT32 activations")),
}


def findings(code: str, raises: bool, tmp_path) -> list[dict]:
    """The findings of `code` when checking the case's model (and inputs)."""
    case = CASES[code]
    path = case.build(raises).save(tmp_path / f"{code}_{raises}.tflite")
    inputs = None
    if case.inputs is not None:
        inputs = str(tmp_path / f"{code}_{raises}.npz")
        np.savez(inputs, **case.inputs(raises))
    rec = check_one(Task(path, case.profile, "cl", True, 1, inputs=inputs, device_families=case.families))
    assert rec["error"] is None, rec["error"]
    return [f for f in rec["findings"] if f["code"] == code]


def test_every_registered_code_has_a_pair():
    assert sorted(CASES) == sorted(r.code for r in all_rules())


@pytest.mark.parametrize("code", sorted(CASES))
def test_the_code_is_raised_on_its_model_and_not_on_the_twin(code, tmp_path):
    found = findings(code, True, tmp_path)
    severity = {r.code: r.severity for r in all_rules()}[code]
    assert found and {f["severity"] for f in found} == {severity}, code
    assert CASES[code].about(found), found
    assert findings(code, False, tmp_path) == []


def test_two_dropped_partitions_read_differently_each_naming_its_ops(models):
    rec = check_one(Task(models.path("two_gathers"), "gpu-current", "cl", True, 1))
    found = [f for f in rec["findings"] if f["code"] == "PRT101"]
    assert len(found) == 2 and found[0]["message"] != found[1]["message"]
    for f in found:
        (node,) = f["nodes"]
        assert f"(#{node[1]} " in f["message"]
