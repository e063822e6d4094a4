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
    """After a `gpucompat ... --runner litert-gpu` run: none of it happened for want of a device."""
    if run.returncode == 2 and "no Vulkan device" in run.stderr:
        without_device(run.stderr.strip())


def every_backend_ran(verification: dict) -> None:
    """After a fix (its JSON `verification`): every backend ran, except that LiteRT's accelerator
    not run for want of a Vulkan device skips the test (call it last, once the rest is checked)."""
    missing = None
    for b in verification["backends"]:
        if b["backend"] == "litert-gpu" and b["not_run"] and "no Vulkan device" in b["not_run"]:
            missing = f"fix's check on LiteRT's GPU accelerator did not run: {b['not_run']}"
        else:
            assert b["not_run"] is None, b
    if missing:
        without_device(missing)
