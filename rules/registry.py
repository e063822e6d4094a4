"""Profiles by name. Each lives in rules/profiles/<module>.py and exposes PROFILE."""

from __future__ import annotations

import importlib

from gpucompat.errors import GpucompatError
from gpucompat.rules.profile import Profile

MODULES: dict[str, str] = {
    "gpu-2019-docs": "gpu_2019_docs",
    "gpu-2019": "gpu_2019",
    "gpu-2020": "gpu_2020",
    "gpu-current": "gpu_current",
    "litert-mldrift": "litert_mldrift",
}
DEFAULT = "gpu-current"


def names() -> list[str]:
    """Every profile name, oldest generation first."""
    return list(MODULES)


def get(name: str) -> Profile:
    """The profile called `name`; a GpucompatError listing the known names otherwise."""
    module = MODULES.get(name)
    if module is None:
        raise GpucompatError(f"unknown profile {name!r} (known: {', '.join(MODULES)})")
    return importlib.import_module(f"gpucompat.rules.profiles.{module}").PROFILE


def get_with_backend(name: str, backend: str) -> Profile:
    """The profile called `name`, which must model `backend` (a GpucompatError naming the ones it
    has otherwise)."""
    profile = get(name)
    if backend not in profile.backends:
        raise GpucompatError(f"profile {name} has no {backend} backend (it has: {', '.join(profile.backends)})")
    return profile
