"""Session fixtures: the generated test models; the `opencl` marker's device check; with
GPUCOMPAT_TESTS_WITHOUT_TF=1, a run that sees TensorFlow as not installed."""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

import modelgen
import models_analyses  # noqa: F401  (registers builders)
import models_attribution  # noqa: F401
import models_basic  # noqa: F401
import models_executor_extra  # noqa: F401
import models_fix  # noqa: F401
import models_fp16  # noqa: F401
import models_freeze  # noqa: F401
import models_ops  # noqa: F401
import models_realapp  # noqa: F401
import models_realworld  # noqa: F401
import models_report  # noqa: F401
import models_scale  # noqa: F401
import models_xformer  # noqa: F401
from not_installed import pythonpath_without

WITHOUT_TF = "GPUCOMPAT_TESTS_WITHOUT_TF"


def pytest_configure(config) -> None:
    """With GPUCOMPAT_TESTS_WITHOUT_TF set, TensorFlow cannot be imported, here and in every child
    process (tests run the CLI and the examples as children): a test that builds a model with
    TensorFlow's converter fails at that import, naming why. Converted models are never kept across
    runs (modelgen.ModelCache lives in the session's temporary directory), so none slips in from an
    earlier run."""
    if os.environ.get(WITHOUT_TF):
        blocked = Path(tempfile.mkdtemp(prefix="gpucompat-without-tf-"))
        atexit.register(shutil.rmtree, blocked, True)
        os.environ["PYTHONPATH"] = pythonpath_without(
            blocked, "tensorflow", f"this test needs TensorFlow's converter; {WITHOUT_TF} is set")
        sys.path.insert(0, str(blocked))


def pytest_report_header(config) -> str | None:
    """Say when TensorFlow is blocked, so a log shows which kind of run it was."""
    return f"tensorflow blocked ({WITHOUT_TF} is set)" if os.environ.get(WITHOUT_TF) else None


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> modelgen.ModelCache:
    """Generated test models, built once per session."""
    return modelgen.ModelCache(str(tmp_path_factory.mktemp("models")))


@pytest.fixture(scope="session")
def real_models() -> dict:
    """The 14 MediaPipe 0.10.14 models (name -> path), fetched once from the pinned wheel."""
    import real_models as real

    return real.fetch()


_OPENCL_PROBLEM: list[str | None] = []  # filled once: why no OpenCL device works, None when one does


def opencl_problem() -> str | None:
    """Why the executor has no working OpenCL device here (the device choice's own message), or
    None: checked once per session."""
    if not _OPENCL_PROBLEM:
        from gpucompat.errors import GpucompatError
        from gpucompat.opencl.device import choose

        try:
            choose()
            _OPENCL_PROBLEM.append(None)
        except GpucompatError as e:
            _OPENCL_PROBLEM.append(str(e))
    return _OPENCL_PROBLEM[0]


def pytest_runtest_setup(item):
    """Tests marked `opencl` skip without a working OpenCL device, or fail when
    GPUCOMPAT_REQUIRE_OPENCL is set (.ci/run sets it: CI must never skip the executor)."""
    if item.get_closest_marker("opencl") and (problem := opencl_problem()):
        if os.environ.get("GPUCOMPAT_REQUIRE_OPENCL"):
            pytest.fail(f"GPUCOMPAT_REQUIRE_OPENCL is set but {problem}", pytrace=False)
        pytest.skip(problem)
