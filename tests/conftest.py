"""Session fixtures: the generated test models; the `opencl` marker's device check."""

import os

import pytest

import modelgen
import models_analyses  # noqa: F401  (registers builders)
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
