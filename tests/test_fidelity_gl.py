"""The classic GL delegate as a second oracle: every model the test suite generates and the 14 MediaPipe
models are handed to mediapipe's OpenGL ES delegate (gpucompat/confirm/gl_runner.py, on Mesa's
llvmpipe through EGL), and `gl-delegate` must predict what it did: whether the delegation builds,
the nodes it replaces in every subgraph and full delegation. Then a sample of the numerics grid
runs on it: a form it computes wrongly must be recorded wrong in rules/support/calibration/
gl_delegate.json (what GPU005 reports under gl-delegate), and a form recorded as failing to build
must fail again.

Runs when the delegate's set-up and an EGL driver are there (`.ci/run` sets them up and sets
GPUCOMPAT_REQUIRE_GL=1, which turns their absence into a failure instead of a skip)."""

import glob
import importlib
import json
import os

import numpy as np
import pytest

import gl
import modelgen
from cli import gpucompat
from gpucompat.calibrate import grid as numerics_grid
from gpucompat.confirm import gl_compare
from gpucompat.rules.support import calibration
from irbuild import IRModel, conv_options, options

HERE = os.path.dirname(os.path.abspath(__file__))
for _path in sorted(glob.glob(os.path.join(HERE, "models_*.py"))):
    importlib.import_module(os.path.basename(_path)[:-3])

NAMES = sorted(set(modelgen.BUILDERS) - {"scale_long_chain"})  # 20,000 ops: its op types are in the others
pytestmark = pytest.mark.fidelity


@pytest.fixture(scope="session")
def launch():
    return gl.launcher()


@pytest.fixture(scope="session")
def confirmed(models, launch) -> dict:
    """Every generated model on the GL delegate beside its prediction, by name."""
    return dict(zip(NAMES, gl_compare.confirm_gl([models.path(n) for n in NAMES], launch)))


@pytest.fixture(scope="session")
def confirmed_real(real_models, launch) -> dict:
    """The MediaPipe models on the GL delegate beside their predictions, by name."""
    return dict(zip(real_models, gl_compare.confirm_gl([str(p) for p in real_models.values()], launch)))


@pytest.mark.parametrize("name", NAMES)
def test_gl_delegate_predicts_the_delegate(confirmed, name):
    c = confirmed[name]
    assert c.disagreements == [], f"{name}: delegate {c.observed} vs predicted {c.predicted}"


def test_gl_delegate_predicts_the_delegate_on_real_models(confirmed_real):
    differ = {n: c.disagreements for n, c in confirmed_real.items() if c.disagreements}
    assert not differ


def test_the_delegate_really_delegated(confirmed, confirmed_real):
    """Guards the suite: a third of the models got GPU nodes (the delegate fails the build of most
    of the others: batches above 1, constants it cannot read), every outcome occurred, and the
    MediaPipe models whose custom ops the interpreter here has no kernel for are not judged rather
    than called agreeing."""
    results = list(confirmed.values())
    assert sum(1 for c in results if c.observed.gpu_ops) > len(results) // 3
    assert any(c.observed.fully_delegated for c in results)
    assert any(not c.observed.compiles and not c.observed.dynamic_gate for c in results)  # a build failure
    assert any(c.observed.dynamic_gate for c in results)
    assert sum(1 for c in confirmed_real.values() if c.observed.fully_delegated) >= 8
    assert {n for n, c in confirmed_real.items() if c.not_judged} >= {"selfie_segmentation",
                                                                       "face_landmark_with_attention"}


def test_confirm_delegate_gl_json(models, launch):
    r = gpucompat("confirm", "--delegate", "gl", models.path("rw_custom_op"), models.path("conv_relu"),
                  "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["runtime"]["delegate"] == "classic GL delegate"
    custom, conv = doc["models"]
    assert custom["agree"] is None and "MyCustomOp" in custom["not_judged"]
    assert conv["agree"] and conv["runtime"]["compiles"] and conv["runtime"]["fully_delegated"]
    assert conv["runtime"]["partitions"] is None and conv["prediction"]["profile"] == "gl-delegate"


def test_verify_runs_a_model_on_the_delegate(tmp_path, launch):
    """verify --runner gl-delegate: the delegate's outputs against the reference interpreter, on a
    3x3 CONV_2D with a fused RELU of a 3-channel image."""
    m = IRModel()
    w = np.random.default_rng(0).standard_normal((8, 3, 3, 3)).astype(np.float32)
    m.output(m.op("CONV_2D", [m.input("image", [1, 16, 16, 3]), m.const("w", w), m.const("b", np.ones(8, np.float32))],
                  [1, 16, 16, 8], options=conv_options(activation="RELU")))
    r = gpucompat("verify", m.save(tmp_path / "conv.tflite"), "--runner", "gl-delegate", "--runs", "2")
    assert r.returncode == 0, r.stderr
    assert "classic GL delegate, fp32, 1 of 1 ops on the GPU" in r.stdout and "PASSED" in r.stdout


def test_fix_keeps_a_wrong_form_it_cannot_make_right_and_says_so(tmp_path, launch):
    """A rank-2 ADD of two runtime tensors, which the delegate computes wrongly: explicit-rank-4's
    RESHAPEs would move the batch axis, which the delegate cannot build, so fix leaves the model
    and names the wrong ops; the delegate itself shows they are wrong."""
    m = IRModel()
    s = m.op("ADD", [m.input("a", [3, 8]), m.input("b", [3, 8])], [3, 8], options=options("Add"))
    m.output(m.op("TANH", [s], [3, 8]))
    path = m.save(tmp_path / "add_rank2.tflite")
    r = gpucompat("fix", path, "--profile", "gl-delegate", "-o", str(tmp_path / "out.tflite"), "-v")
    assert r.returncode == 0, r.stderr
    assert "not applied explicit-rank-4 at op#0 ADD" in r.stdout and "cannot build its new RESHAPE" in r.stdout
    assert "2 ops are known wrong on the real GPU: op#0 ADD [ADD runtime [n,n] with runtime [n,n]]" in r.stdout
    v = gpucompat("verify", path, "--runner", "gl-delegate", "--runs", "2")
    assert v.returncode == 1 and "FAILED" in v.stdout


# right, wrong and build-failing forms the sample must hold
GUARDS = ("add_rn_rn_0", "add_r1nnn_cn_0", "softmax_n_0", "softmax_1nnn_0", "add_rnnnn_r111n_0")


@pytest.fixture(scope="module")
def grid(launch) -> dict:
    """A sample of the numerics grid (the hand-picked forms and one enumerated form in
    SAMPLE_EVERY), run on the GL delegate, by name."""
    forms = {f.name: f for f in [*numerics_grid.chosen("sample"),
                                 *(f for f in numerics_grid.forms() if f.name in GUARDS)]}
    numerics_grid.run(list(forms.values()), launch)
    return forms


def _table() -> calibration.Table:
    return calibration.Table(calibration.load(calibration.GL))


def test_every_form_the_delegate_computes_wrongly_is_recorded_wrong(grid):
    table = _table()
    missed = [f"{f.name} [{f.key}] {p}: delegate {got}, recorded {table.observed(f.key)}"
              for f in grid.values() for p, got in f.result.items()
              if got["wrong"] and table.status(f.key, p) != "wrong"]
    assert not missed, "\n".join(missed)


def test_every_form_that_fails_to_build_is_recorded(grid):
    table = _table()
    missed = [f"{f.name} [{f.key}]: {f.build}" for f in grid.values() if f.build and not table.build_failure(f.key)]
    assert not missed, "\n".join(missed)
    assert any(f.build for f in grid.values()) and any(f.result for f in grid.values())


def test_the_grid_finds_each_kind_on_the_delegate(grid):
    """Guards the sample: rank-1 runtime ADD is wrong (the delegate makes the axis its batch), the
    same ADD at rank 4 with a channel vector right; rank-1 SOFTMAX wrong, rank 4 right; a batch
    broadcast fails to build."""
    assert grid["add_rn_rn_0"].result["fp32"]["wrong"] and grid["softmax_n_0"].result["fp32"]["wrong"]
    assert not grid["add_r1nnn_cn_0"].result["fp32"]["wrong"]
    assert not grid["softmax_1nnn_0"].result["fp32"]["wrong"]
    assert "Batch size" in (grid["add_rnnnn_r111n_0"].build or "")
