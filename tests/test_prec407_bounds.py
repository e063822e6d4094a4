"""PREC407 (fp16 EXP without max-subtraction) on the EXP forms whose input the ops keep below
ln(65504), and on their twins that can pass it: written with tests/irbuild.py, no converter. The
bounds come from gpucompat/static_bounds.py, a few checked directly at the end."""

from __future__ import annotations

import numpy as np
import pytest

from gpucompat import ir
from gpucompat.pipeline import Task, check_one
from gpucompat.static_bounds import MAX_DEPTH, UNBOUNDED, Bounds
from irbuild import IRModel, options

OPTIONS = {"ADD": "Add", "SUB": "Sub", "MUL": "Mul"}


class Form:
    """Writes y = form(x) into a model, for x of `shape`: a chain of ops, each a name (unary) or
    (name, constant[, fused activation]); `then` is applied to the chain's end."""

    def __init__(self, *steps, then=None):
        self.steps, self.then = steps, then

    def __call__(self, m: IRModel, x: int, shape: list[int]) -> int:
        """The form's output tensor."""
        for step in self.steps:
            name, *rest = (step,) if isinstance(step, str) else step
            if not rest:
                x = m.op(name, [x], shape)
                continue
            kind = OPTIONS.get(name)
            fused = options(kind, activation=rest[1] if len(rest) > 1 else "NONE") if kind else None
            x = m.op(name, [x, m.const(f"c{len(m.graph.rec.tensors)}", np.float32(rest[0]))], shape, options=fused)
        return x if self.then is None else self.then(m, x, shape)


def max_put_back(how: str, of_x: bool = True):
    """x - REDUCE_MAX(z, last axis, keepDims false) put back to [..., 1] by RESHAPE or EXPAND_DIMS;
    z is x, or another input y (no max-subtraction)."""
    def form(m: IRModel, x: int, shape: list[int]) -> int:
        z = x if of_x else m.input("y", shape)
        top = m.op("REDUCE_MAX", [z, m.const("axis", np.asarray([1], np.int32))], shape[:1],
                   options=options("Reducer", keepDims=False))
        to = np.asarray([1, 1], np.int32) if how == "RESHAPE" else np.int32(-1)
        back = m.op(how, [top, m.const("to", to)], [1, 1])
        return m.op("SUB", [x, back], shape, options=options("Sub"))
    return form


def tanh_and_logistic(m: IRModel, x: int, shape: list[int]) -> int:
    """CONCATENATION(TANH(x), LOGISTIC(x)) on the last axis."""
    parts = [m.op("TANH", [x], shape), m.op("LOGISTIC", [x], shape)]
    return m.op("CONCATENATION", parts, [shape[0], 2 * shape[1]], options=options("Concatenation", axis=1))


def exp_model(form, width: int = 8, summed: bool = False) -> IRModel:
    """EXP(form(x)) of one input x [1, width], then a SUM over the last axis when `summed`."""
    m = IRModel()
    shape = [1, width]
    y = form(m, m.input("x", shape), shape)
    e = m.op("EXP", [y], list(m.graph.rec.tensors[y].shape))
    if summed:
        e = m.op("SUM", [e, m.const("axes", np.asarray([1], np.int32))], [1, 1],
                 options=options("Reducer", keepDims=True))
    m.output(e)
    return m


# forms whose input cannot pass ln(65504) = 11.09: never positive, or bounded below it
BOUNDED = {
    "softplus NEG(ABS x)": Form("ABS", "NEG"),
    "gaussian NEG(SQUARE x)": Form("SQUARE", "NEG"),
    "rbf MUL(SQUARE x, -0.5)": Form("SQUARE", ("MUL", -0.5)),
    "NEG(RELU x)": Form("RELU", "NEG"),
    "elu MINIMUM(x, 0)": Form(("MINIMUM", 0.0)),
    "LOGISTIC": Form("LOGISTIC"),
    "TANH": Form("TANH"),
    "RELU6": Form("RELU6"),
    "box clip MINIMUM(x, 4.135)": Form(("MINIMUM", 4.135)),
    "REDUCE_MAX reshaped back": max_put_back("RESHAPE"),
    "REDUCE_MAX expanded back": max_put_back("EXPAND_DIMS"),
    "fused RELU6 on ADD": Form(("ADD", 100.0, "RELU6")),
    "TANH and LOGISTIC concatenated": Form(then=tanh_and_logistic),
    "RELU6 then MUL 1.5 then SUB 1": Form("RELU6", ("MUL", 1.5), ("SUB", 1.0)),
    "MAXIMUM(MINIMUM(x, 3), -3)": Form(("MINIMUM", 3.0), ("MAXIMUM", -3.0)),
}

# their twins: the same ops, but nothing keeps the input below 11.09
UNBOUNDED_FORMS = {
    "raw input": Form(),
    "MINIMUM(x, 20)": Form(("MINIMUM", 20.0)),
    "NEG(x)": Form("NEG"),
    "MUL(SQUARE x, +0.5)": Form("SQUARE", ("MUL", 0.5)),
    "MAXIMUM(x, 0)": Form(("MAXIMUM", 0.0)),
    "REDUCE_MAX of another tensor": max_put_back("RESHAPE", of_x=False),
    "fused RELU on ADD": Form(("ADD", 100.0, "RELU")),
    "RELU6 then MUL 2": Form("RELU6", ("MUL", 2.0)),
}


def check(model: IRModel, tmp_path) -> tuple[list[dict], str]:
    """(PREC407 findings, where the EXP is placed) when checking `model` without inputs."""
    path = model.save(tmp_path / "exp.tflite")
    rec = check_one(Task(path, "gpu-current", "cl", True, 1))
    assert rec["error"] is None, rec["error"]
    placement = next(o["placement"] for o in rec["ops"] if o["op"] == "EXP")
    return [f for f in rec["findings"] if f["code"] == "PREC407"], placement


@pytest.mark.parametrize("form", sorted(BOUNDED))
def test_a_gpu_exp_whose_input_the_ops_bound_is_not_flagged(form, tmp_path):
    found, placement = check(exp_model(BOUNDED[form]), tmp_path)
    assert placement == "gpu" and found == []


@pytest.mark.parametrize("form", sorted(UNBOUNDED_FORMS))
def test_a_gpu_exp_whose_input_can_pass_11_09_is_flagged(form, tmp_path):
    found, placement = check(exp_model(UNBOUNDED_FORMS[form]), tmp_path)
    assert placement == "gpu" and len(found) == 1
    assert "without max-subtraction" in found[0]["message"] and "past 11.09" in found[0]["message"]


def test_the_finding_names_a_finite_bound(tmp_path):
    found, _ = check(exp_model(Form(("MINIMUM", 20.0))), tmp_path)
    assert "(at most 20, by the ops before it): past 11.09 exp overflows" in found[0]["message"]


def test_a_sum_of_the_exps_lowers_the_limit_to_ln_65504_over_n(tmp_path):
    # exp(6) = 403: 128 of them stay below 65504 (51,644), 256 pass it (103,288)
    assert check(exp_model(Form("RELU6"), 128, summed=True), tmp_path)[0] == []
    found, _ = check(exp_model(Form("RELU6"), 256, summed=True), tmp_path)
    assert len(found) == 1 and "past 5.54 a sum of 256 exps overflows fp16" in found[0]["message"]


def _graph(model: IRModel):
    return ir.from_bytes(model.bytes()).graphs[0]


def test_bounds_of_fused_activations_squares_and_constants():
    m = IRModel()
    x = m.input("x", [1, 8])
    conv_like = m.op("ADD", [x, m.const("c", np.asarray([-2.0, 3.0], np.float32).repeat(4))], [1, 8],
                     options=options("Add", activation="RELU_N1_TO_1"))
    square = m.op("MUL", [x, x], [1, 8], options=options("Mul"))
    difference = m.op("SQUARED_DIFFERENCE", [x, m.const("mu", np.ones(8, np.float32))], [1, 8])
    plus = m.op("ADD", [x, m.const("k", np.asarray([-2.0, 3.0], np.float32).repeat(4))], [1, 8],
                options=options("Add"))
    m.output(conv_like, square, difference, plus)
    graph = _graph(m)
    bounds = Bounds()
    assert [bounds.of(op.outputs[0]) for op in graph.ops] == [(-1.0, 1.0), (0.0, np.inf), (0.0, np.inf), UNBOUNDED]
    assert bounds.of(graph.ops[0].present_inputs[1]) == (-2.0, 3.0)


def test_bounds_stop_at_max_depth():
    m = IRModel()
    y = m.op("TANH", [m.input("x", [1, 8])], [1, 8])
    for _ in range(MAX_DEPTH + 2):
        y = m.op("NEG", [y], [1, 8])
    m.output(y)
    graph = _graph(m)
    assert Bounds().of(graph.ops[-1].outputs[0]) == UNBOUNDED
    assert Bounds().of(graph.ops[MAX_DEPTH - 1].outputs[0]) == (-1.0, 1.0)  # TANH reached at MAX_DEPTH - 1
