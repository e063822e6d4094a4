"""Session fixtures: the generated test models."""

import pytest

import modelgen
import models_analyses  # noqa: F401  (registers builders)
import models_basic  # noqa: F401
import models_executor_extra  # noqa: F401
import models_fix  # noqa: F401
import models_fp16  # noqa: F401
import models_freeze  # noqa: F401
import models_ops  # noqa: F401
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
