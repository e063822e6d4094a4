"""Each measured LiteRT release against its own wheel: the fidelity corpus (every generated test
model and the 14 MediaPipe models) compiled on that release's real GPU accelerator must be what
`litert-mldrift@RELEASE` predicts, on every point `confirm` compares. The stable release is
tests/test_fidelity.py's.

A release's accelerator lives in its own set-up directory, beside the stable one:
`$GPUCOMPAT_VULKAN_DIR-RELEASE` (e.g. ~/.cache/gpucompat-oracle-2.2.0), made by the shared
set-up script with `LITERT_PIP=ai-edge-litert==2.2.0` (.ci/run makes them). About 3 minutes per
release on the software driver."""

import dataclasses
import os

import pytest

from gpucompat.confirm import compare, runner
from gpucompat.rules.support import registry
from gpucompat.rules.support.profiles.litert_mldrift_releases import RELEASES, STABLE
from test_fidelity import NAMES
from vulkan import without_device

pytestmark = pytest.mark.fidelity
OTHER_RELEASES = sorted(r for r in RELEASES if r != STABLE)


def release_launcher(release: str) -> runner.Launcher:
    """The accelerator of `release`: its set-up directory's Vulkan driver and Python."""
    base = os.path.expanduser(os.environ.get(runner.SETUP_DIR_VARIABLE) or runner.DEFAULT_SETUP_DIR)
    directory = f"{base.rstrip('/')}-{release}"
    python = os.path.join(directory, "venv", "bin", "python")
    if not os.path.isfile(python):
        without_device(f"LiteRT {release}'s accelerator is not set up in {directory} "
                       f"(LITERT_PIP=ai-edge-litert==={release} bash shared/oracle/setup.sh {directory})")
    return dataclasses.replace(runner.launcher(directory), python=python)


@pytest.fixture(scope="module", params=OTHER_RELEASES)
def release_confirmed(request, models, real_models) -> tuple[str, list]:
    """Every corpus model compiled on one release beside that release's prediction."""
    launch = release_launcher(request.param)
    paths = [models.path(n) for n in NAMES] + [str(p) for p in real_models.values()]
    try:
        return request.param, compare.confirm(paths, launch)
    except runner.NoDevice as e:
        without_device(str(e))


def test_each_release_profile_predicts_its_own_runtime(release_confirmed):
    release, confirmed = release_confirmed
    assert {c.runtime.litert for c in confirmed} == {release}, "the child ran another release"
    assert {c.prediction.profile.name for c in confirmed} == {f"litert-mldrift@{release}"}
    wrong = [f"{os.path.basename(c.path)}: {c.disagreements}" for c in confirmed if c.disagreements]
    assert not wrong, "\n".join(wrong)


def test_the_releases_really_differ_where_the_profiles_say(release_confirmed):
    """Guards the corpus: for each release some model is delegated differently from the stable
    release, and the stable profile would have predicted it wrongly."""
    release, confirmed = release_confirmed
    stable = registry.get("litert-mldrift")
    differs = [c for c in confirmed if compare.disagreements(
        c.observed, compare.predicted(_check(c.path, stable)))]
    assert differs, f"no corpus model tells LiteRT {release} from {STABLE}"


def _check(path, profile):
    from gpucompat import ir
    from gpucompat.placement import check_model
    from gpucompat.rules.support.profile import Options

    return check_model(ir.load(path), profile, Options(backend="webgpu"))
