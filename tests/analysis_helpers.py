"""Run the check and the analyses in-process on a generated model."""

from gpucompat import ir
from gpucompat.analyses import analyze
from gpucompat.placement import check_model
from gpucompat.rules.support import registry
from gpucompat.rules.support.profile import Options


def analyses_of(path: str, profile: str = "gpu-current", **options):
    """(check result, analyses) of the model at `path`."""
    model = ir.load(path)
    result = check_model(model, registry.get(profile), Options(**options))
    return result, analyze(model, result)
