"""Profiles by name. Each lives in rules/support/profiles/<module>.py and exposes PROFILE; a measured
release of LiteRT's accelerator is `litert-mldrift@RELEASE` (rules/support/profiles/litert_mldrift_releases.py),
and plain `litert-mldrift` is the newest stable release measured. A path names a calibrated
profile file (rules/support/profile_file.py)."""

from __future__ import annotations

import importlib
import os

from gpucompat.errors import GpucompatError
from gpucompat.rules.support.profile import Profile

MODULES: dict[str, str] = {
    "gpu-2019-docs": "gpu_2019_docs",
    "gpu-2019": "gpu_2019",
    "gpu-2020": "gpu_2020",
    "gpu-current": "gpu_current",
    "gl-delegate": "gl_delegate",
    "litert-mldrift": "litert_mldrift",
}
DEFAULT = "gpu-current"


def names() -> list[str]:
    """Every profile name, oldest generation first, then each measured release."""
    return [*MODULES, *(f"litert-mldrift@{r}" for r in _releases())]


def get(name: str) -> Profile:
    """The profile called `name`, or else the one read from the file `name` that `gpucompat
    calibrate` wrote; a GpucompatError listing the known names otherwise."""
    family, at, release = name.partition("@")
    if at and family == "litert-mldrift":
        profile = _releases().get(release)
        if profile is None:
            raise GpucompatError(f"no measured litert-mldrift release {release!r} (measured: "
                                 f"{', '.join(_releases())}; `gpucompat confirm` compares any release with 2.3.0)")
        return profile
    module = MODULES.get(name)
    if module is not None:
        return importlib.import_module(f"gpucompat.rules.support.profiles.{module}").PROFILE
    if name.endswith(".json") or os.sep in name or os.path.isfile(name):
        from gpucompat.rules.support.profile_file import load

        return load(name)
    raise GpucompatError(f"unknown profile {name!r} (known: {', '.join(names())}, or the path of a file "
                         f"`gpucompat calibrate` wrote)")


def for_release(release: str | None) -> Profile:
    """The litert-mldrift profile of a LiteRT release (the one `confirm` finds installed): plain
    `litert-mldrift` for the stable release and for a release never measured."""
    stable = get("litert-mldrift")
    return stable if release == stable.release else _releases().get(release or "", stable)


def _releases() -> dict[str, Profile]:
    from gpucompat.rules.support.profiles.litert_mldrift_releases import RELEASES

    return RELEASES


def backend_for(name: str, asked: str | None) -> str:
    """The backend to judge profile `name` on: `asked` when given, else OpenCL where the profile
    has it (the delegate's first choice), else the profile's own (gl-delegate: gl)."""
    if asked:
        return asked
    backends = get(name).backends
    return "cl" if "cl" in backends else backends[0]


def get_with_backend(name: str, backend: str) -> Profile:
    """The profile called `name`, which must model `backend` (a GpucompatError naming the ones it
    has otherwise)."""
    profile = get(name)
    if backend not in profile.backends:
        raise GpucompatError(f"profile {name} has no {backend} backend (it has: {', '.join(profile.backends)})")
    return profile
