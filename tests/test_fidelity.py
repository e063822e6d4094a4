"""The fidelity suite: every model the test suite generates (all tests/models_*.py builders: the
one-op grid, the multi-op graphs, the real-world kinds) and the 14 MediaPipe models (real
converter output, tests/real_models.py) are compiled on LiteRT's real GPU accelerator, and
`litert-mldrift` must predict what it did: whether the model compiles, the GPU op count and the
partition count of every subgraph, full delegation, the rejected op types and the dynamic-tensor
gate.

Runs when a Vulkan device is usable (`.ci/run` installs a software one and sets
GPUCOMPAT_REQUIRE_VULKAN=1, which turns a missing device into a failure instead of a skip).
All models go through a few child processes (gpucompat/confirm/runner.py), about 0.1 s each."""

import glob
import importlib
import json
import os

import pytest

import modelgen
import real_models
from cli import gpucompat
from gpucompat.confirm import compare, runner
from vulkan import without_device

HERE = os.path.dirname(os.path.abspath(__file__))
for _path in sorted(glob.glob(os.path.join(HERE, "models_*.py"))):
    importlib.import_module(os.path.basename(_path)[:-3])

# The report's 20,000-op chain (tests/models_scale.py) takes the software Vulkan driver past the
# child's 120 s limit; its two op types are confirmed here in the smaller models.
TOO_SLOW_ON_A_SOFTWARE_DRIVER = {"scale_long_chain"}
NAMES = sorted(set(modelgen.BUILDERS) - TOO_SLOW_ON_A_SOFTWARE_DRIVER)
pytestmark = pytest.mark.fidelity


def _confirm(paths: list[str]) -> list:
    """Each model compiled on the accelerator beside its prediction (skips without a device)."""
    try:
        return compare.confirm(paths, runner.launcher())
    except runner.NoDevice as e:
        without_device(str(e))


@pytest.fixture(scope="session")
def confirmed(models) -> dict:
    """Every generated model compiled on the accelerator beside its prediction, by name."""
    return dict(zip(NAMES, _confirm([models.path(name) for name in NAMES])))


@pytest.fixture(scope="session")
def confirmed_real(real_models) -> dict:
    """The 14 MediaPipe models compiled on the accelerator beside their predictions, by name."""
    return dict(zip(real_models, _confirm([str(p) for p in real_models.values()])))


@pytest.mark.parametrize("name", NAMES)
def test_litert_mldrift_predicts_the_runtime(confirmed, name):
    c = confirmed[name]
    assert c.disagreements == [], f"{name}: runtime {c.observed} vs predicted {c.predicted}"


@pytest.mark.parametrize("name", real_models.NAMES)
def test_litert_mldrift_predicts_the_runtime_on_real_models(confirmed_real, name):
    c = confirmed_real[name]
    assert c.disagreements == [], f"{name}: runtime {c.observed} vs predicted {c.predicted}"


def test_real_models_are_delegated_as_shipped(confirmed_real):
    """Guards the real-model half: MediaPipe ships its models to run on the GPU, so the runtime
    takes most of them whole in one partition (Convolution2DTransposeBias included); DENSIFY
    splits the two sparse ones, and a MediaPipe-only custom op stops one from loading."""
    whole = [n for n, c in confirmed_real.items() if c.observed.fully_delegated]
    assert len(whole) >= 11 and all(confirmed_real[n].observed.partitions == {0: 1} for n in whole)
    assert "selfie_segmentation" in whole
    for split in ("face_detection_full_range_sparse", "pose_detection"):
        assert "DENSIFY" in confirmed_real[split].observed.rejected
    assert not confirmed_real["face_landmark_with_attention"].observed.compiles


def test_the_runtime_really_delegated(confirmed):
    """Guards the suite itself: GPU ops were read from the runtime's lines for most models,
    every kind of outcome occurred, and the runtime is the one the profile describes."""
    results = list(confirmed.values())
    assert sum(1 for c in results if c.observed.gpu_ops) > len(results) // 2
    assert any(not c.observed.compiles for c in results) and any(c.observed.fully_delegated for c in results)
    assert any(c.observed.rejected for c in results) and any(c.observed.dynamic_gate for c in results)
    assert any(c.runtime.crashed for c in results)
    assert {c.runtime.litert for c in results} == {"2.3.0"}


def test_confirm_command_json(confirmed, models):
    """rw_while by hand: subgraph 0 WHILE (refused) | TANH, cond LESS, body ADD, MUL, ADD."""
    r = gpucompat("confirm", models.path("rw_while"), "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["runtime"]["litert"] == "2.3.0" and doc["runtime"]["device"]
    (rec,) = doc["models"]
    assert rec["agree"] and rec["disagreements"] == []
    for side in ("runtime", "prediction"):
        assert rec[side]["gpu_ops"] == {"0": 1, "1": 1, "2": 3}
        assert list(rec[side]["rejected"]) == ["WHILE"] and rec[side]["compiles"] and not rec[side]["fully_delegated"]


def test_check_confirm_prints_both_sides(confirmed, models):
    r = gpucompat("check", models.path("rw_custom_op"), "--profile", "litert-mldrift", "--confirm")
    assert r.returncode in (0, 1), r.stderr
    assert "Encountered unresolved custom op: MyCustomOp" in r.stdout
    assert "1 of 1 model(s): the runtime and litert-mldrift agree" in r.stdout
