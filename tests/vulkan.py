"""Tests on LiteRT's real GPU accelerator need a Vulkan device (the software one the oracle set-up
installs): without one they skip, or fail when GPUCOMPAT_REQUIRE_VULKAN is set (.ci/run sets it
when the set-up script is there, so CI never skips them)."""

import os

import pytest


def without_device(why: str):
    """No Vulkan device for the accelerator: a failure where one is required, else a skip."""
    if os.environ.get("GPUCOMPAT_REQUIRE_VULKAN"):
        pytest.fail(f"GPUCOMPAT_REQUIRE_VULKAN is set but {why}")
    pytest.skip(why)


def gate(run) -> None:
    """After a `gpucompat ... --backend litert-gpu` run: none of it happened for want of a device."""
    if run.returncode == 2 and "no Vulkan device" in run.stderr:
        without_device(run.stderr.strip())
