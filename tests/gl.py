"""Tests on the classic GL delegate need its set-up (libgl_shim.so and gl_delegate.json in
$GPUCOMPAT_GL_DIR, ../shared/oracle/gl/setup.sh) and an EGL / GL ES driver: without them they skip,
or fail when GPUCOMPAT_REQUIRE_GL is set (.ci/run sets it when the set-up script is there)."""

import os

import pytest


def without_gl(why: str):
    """No GL delegate here: a failure where one is required, else a skip naming what is missing."""
    if os.environ.get("GPUCOMPAT_REQUIRE_GL"):
        pytest.fail(f"GPUCOMPAT_REQUIRE_GL is set but {why}")
    pytest.skip(why)


def launcher():
    """The GL delegate's launcher, or the skip (failure) naming what is missing."""
    from gpucompat.confirm.gl_runner import NoGl, gl_launcher

    try:
        return gl_launcher()
    except NoGl as e:
        without_gl(str(e))
