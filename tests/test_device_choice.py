"""Which OpenCL device the executor runs on: the first candidate (GPU driver, PoCL, Intel's CPU
runtime, any other) whose probe kernel builds and runs right, the answer kept per device and
driver, and one line per candidate when none works.

PoCL is made to fail as it fails on CPUs its LLVM 14 does not know (AMD Zen 5: every kernel
rejected by the compiler): POCL_EXTRA_BUILD_FLAGS adds options to every PoCL build, and redefining
a predefined macro under -Werror is a compiler error. Intel's runtime is made to fail by naming a
target architecture it does not know (CL_CONFIG_CPU_TARGET_ARCH): it then will not open its device.
"""

import json
import os
import platform
import sys
import threading
from importlib import metadata
from types import SimpleNamespace

import pytest

from cli import gpucompat
from gpucompat.opencl import device
from gpucompat.opencl.cache import default_dir
from gpucompat.opencl.probe import probe
from gpucompat.verification.session import Settings, verify_model

POCL_FAILS = {"POCL_EXTRA_BUILD_FLAGS": "-Werror -D__OPENCL_VERSION__=1"}
INTEL_FAILS = {"CL_CONFIG_CPU_TARGET_ARCH": "nosuchcpu"}
ON_X86_64_LINUX = sys.platform == "linux" and platform.machine() == "x86_64"

pytestmark = pytest.mark.opencl


def fake_gpu(name: str) -> SimpleNamespace:
    """A GPU driver that lists a device it cannot open (a stand-in: pyopencl refuses to make a
    context on it, as a broken driver refuses with DEVICE_NOT_AVAILABLE)."""
    return SimpleNamespace(platform=SimpleNamespace(name="Fake GPU Platform", version="OpenCL 3.0 fake"),
                           name=name, driver_version="0.0", version="OpenCL 3.0",
                           type=device.cl().device_type.GPU)


def kinds() -> list[str]:
    return [device.kind(d) for d in device.all_devices()]


def require_a_candidate_after_pocl() -> None:
    """The fallback tests need PoCL and a working CPU device after it (Intel's runtime is a
    dependency on x86-64 Linux)."""
    if "PoCL" in kinds() and "Intel CPU runtime" in kinds():
        return
    why = "these tests need PoCL and Intel's CPU runtime (pip install intel-opencl-rt intel-cmplr-lib-rt)"
    if ON_X86_64_LINUX or os.environ.get("GPUCOMPAT_REQUIRE_OPENCL"):
        pytest.fail(f"both are dependencies here: {why}", pytrace=False)
    pytest.skip(why)


def test_a_candidate_that_fails_its_probe_is_passed_over_for_the_next(monkeypatch, tmp_path):
    real = device.all_devices()
    monkeypatch.setattr(device, "all_devices", lambda: [fake_gpu("fake0"), *real])
    chosen = device.choose(cache_dir=str(tmp_path))
    working = [d for d in real if probe(d, str(tmp_path)).works]
    assert chosen.name == device.name_of(working[0])
    assert chosen.passed_over[0].startswith("Fake GPU Platform / fake0 (GPU driver): the probe kernel: ")


def test_when_no_candidate_works_each_gets_a_line_with_its_reason(monkeypatch, tmp_path):
    monkeypatch.setattr(device, "all_devices", lambda: [fake_gpu("fake0"), fake_gpu("fake1")])
    with pytest.raises(device.NoWorkingDevice) as raised:
        device.choose(cache_dir=str(tmp_path))
    lines = raised.value.lines()
    assert lines[0] == "no OpenCL device can run the executor's kernels:"
    assert [line.split(": the probe kernel: ")[0] for line in lines[1:3]] == [
        "  Fake GPU Platform / fake0 (GPU driver)", "  Fake GPU Platform / fake1 (GPU driver)"]
    assert lines[3] == ("gpucompat doctor lists every device; on x86-64 Linux `pip install intel-opencl-rt "
                        "intel-cmplr-lib-rt` adds Intel's CPU runtime")
    assert "\n" not in str(raised.value)  # one line where a report quotes it (fix's "not run: ...")


def test_the_probe_answer_is_kept_per_device_and_driver_settings(monkeypatch, tmp_path):
    """A second probe of the same device is a file read; any POCL_* / CL_CONFIG_* setting (which
    changes what a driver's compiler does) makes a new probe. (PoCL did not always see a setting
    changed inside a running process, so PoCL made to fail is shown in child processes below.)"""
    first = device.all_devices()[0]
    fresh, kept = probe(first, str(tmp_path)), probe(first, str(tmp_path))
    assert not fresh.cached and kept.cached and kept.works == fresh.works and kept.why == fresh.why
    monkeypatch.setenv("POCL_GPUCOMPAT_TEST_SETTING", "1")
    assert not probe(first, str(tmp_path)).cached
    assert probe(first, str(tmp_path)).cached
    assert len(list(tmp_path.glob("*/probe-*.json"))) == 2


def test_intel_runtime_from_its_wheel_is_a_candidate_and_the_environment_is_left_alone():
    if not list(metadata.distributions(name="intel-opencl-rt")):
        if ON_X86_64_LINUX:
            pytest.fail("intel-opencl-rt is a dependency on x86-64 Linux but is not installed", pytrace=False)
        pytest.skip("intel-opencl-rt has wheels for x86-64 Linux only")
    before = os.environ.get("OCL_ICD_VENDORS")
    assert "Intel CPU runtime" in kinds()
    assert os.environ.get("OCL_ICD_VENDORS") == before


def test_verify_runs_on_the_next_device_when_pocl_rejects_every_kernel(models, monkeypatch, tmp_path):
    require_a_candidate_after_pocl()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a fresh probe, not an answer kept earlier
    for k, v in POCL_FAILS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GPUCOMPAT_DEBUG", "1")
    r = gpucompat("verify", models.path("conv_relu"), "--runs", "3", "--format", "json", "--cache-dir", "")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["passed"] and doc["device"].startswith("Intel(R) OpenCL"), doc["device"]
    pocl = next(device.name_of(d) for d in device.all_devices() if device.kind(d) == "PoCL")
    assert (f"[gpucompat] OpenCL device passed over: {pocl} (PoCL): the probe kernel: "
            "the OpenCL compiler rejected the kernel: ") in r.stderr


def test_doctor_names_the_device_verify_uses_and_why_pocl_was_passed_over(monkeypatch, tmp_path):
    require_a_candidate_after_pocl()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for k, v in POCL_FAILS.items():
        monkeypatch.setenv(k, v)
    r = gpucompat("doctor", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    pocl = next(d for d in doc["opencl"]["devices"] if d["kind"] == "PoCL")
    intel = next(d for d in doc["opencl"]["devices"] if d["kind"] == "Intel CPU runtime")
    assert not pocl["works"] and "the OpenCL compiler rejected the kernel" in pocl["why"]
    assert intel["works"] and doc["opencl"]["verify_device"] == intel["name"] and doc["verify_can_run"]
    assert doc["program_cache"]["directory"] == os.path.join(str(tmp_path), "gpucompat", "programs")
    text = gpucompat("doctor").stdout
    assert f"verify uses: {intel['name']}" in text
    assert f"passed over: {pocl['why']}" in text and "probe passed (kept from an earlier run)" in text


def test_with_no_working_device_verify_says_why_for_each_candidate_and_exits_2(models, monkeypatch, tmp_path):
    require_a_candidate_after_pocl()
    if set(kinds()) != {"PoCL", "Intel CPU runtime"}:
        pytest.skip("another OpenCL driver is installed, which these settings do not make fail")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for k, v in {**POCL_FAILS, **INTEL_FAILS}.items():
        monkeypatch.setenv(k, v)
    r = gpucompat("verify", models.path("conv_relu"), "--runs", "1", "--cache-dir", "")
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    names = [device.name_of(d) for d in device.all_devices()]
    assert lines[0] == "gpucompat: no OpenCL device can run the executor's kernels:"
    # what gpucompat controls: one line per candidate, naming it and the step that failed; the
    # driver's own words vary by host (PoCL on AMD Zen 5 fails before the forced error: "unknown
    # target CPU 'generic'"), so they are only required to be there
    for line, name, kind in zip(lines[1:3], names, ("PoCL", "Intel CPU runtime")):
        head = f"  {name} ({kind}): the probe kernel: "
        assert line.startswith(head) and line[len(head):].strip(), line
    assert lines[3].startswith("gpucompat doctor lists every device") and len(lines) == 4
    assert gpucompat("doctor").returncode == 1


def test_a_name_matches_a_platform_before_a_device_named_after_the_processor():
    """PoCL names its CPU device after the processor, so on an Intel CPU "Intel" is part of PoCL's
    device name too: `--device Intel` opens Intel's runtime, "pthread" PoCL's device."""
    def cpu(platform_name: str, name: str) -> SimpleNamespace:
        return SimpleNamespace(platform=SimpleNamespace(name=platform_name), name=name)

    pocl = cpu("Portable Computing Language", "pthread-Intel(R) Xeon(R) Processor @ 2.10GHz")
    intel = cpu("Intel(R) OpenCL", "Intel(R) Xeon(R) Processor @ 2.10GHz")
    assert device._pick([pocl, intel], "Intel") is intel
    assert device._pick([pocl, intel], "pthread") is pocl
    assert device._pick([pocl, intel], "portable") is pocl
    assert device._pick([pocl, intel], "1") is intel


def test_a_device_opened_ahead_fails_with_the_lines_choose_gives(monkeypatch, tmp_path):
    """verify and fix start opening the device in the background (its probe overlaps with their
    other work): a failure there reaches the user as the same lines as when choose runs in the
    foreground, and only once: the next choose tries again."""
    monkeypatch.setattr(device, "all_devices", lambda: [fake_gpu("fake0")])
    with pytest.raises(device.NoWorkingDevice) as foreground:
        device.choose(cache_dir=str(tmp_path / "a"))
    device.open_ahead(cache_dir=str(tmp_path / "b"))
    with pytest.raises(device.NoWorkingDevice) as background:
        device.choose(cache_dir=str(tmp_path / "b"))
    assert background.value.lines() == foreground.value.lines()
    monkeypatch.setattr(device, "all_devices", lambda: [])
    with pytest.raises(device.CLError, match="no OpenCL device found"):
        device.choose(cache_dir=str(tmp_path / "b"))


def test_a_device_opened_ahead_is_the_one_choose_gives(tmp_path):
    device.open_ahead(cache_dir=str(tmp_path))
    ahead = device.choose(cache_dir=str(tmp_path))
    assert ahead.name == device.choose(cache_dir=str(tmp_path)).name
    assert ahead.context.devices == [ahead.device]


def test_an_error_while_fix_opens_the_device_in_the_background_is_one_line(monkeypatch, tmp_path):
    """fix starts opening the device (a cold probe silences stderr while it builds) before it reads
    the model: a model it cannot read still gets its one-line error on stderr, exit code 2."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a cold probe
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a model")
    r = gpucompat("fix", str(bad), "-o", str(tmp_path / "out.tflite"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("gpucompat: ") and str(bad) in r.stderr and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "out.tflite").exists()


def test_a_device_opened_ahead_under_other_driver_settings_is_not_taken(monkeypatch, tmp_path):
    """A process that changes the driver settings between two commands (the API, tests) gets a
    device chosen under the new ones, not what a background open found under the old."""
    real = device.all_devices()
    monkeypatch.setattr(device, "all_devices", lambda: [fake_gpu("fake0")])
    device.open_ahead(cache_dir=str(tmp_path))
    device.settle()
    monkeypatch.setenv("POCL_GPUCOMPAT_TEST_SETTING", "1")
    monkeypatch.setattr(device, "all_devices", lambda: real)
    working = [d for d in real if probe(d, str(tmp_path)).works]
    assert device.choose(cache_dir=str(tmp_path)).name == device.name_of(working[0])


def _first_probe_held_until_a_build(monkeypatch, fails: bool) -> list[str]:
    """The first candidate's probe held until a build has started on it (the builds of verify and
    fix start while the probe runs), then run, or made to fail as on a driver computing wrong
    numbers. Returns the names of the devices each compile ran on, in order."""
    from gpucompat.opencl import probe as probe_module
    from gpucompat.opencl.runtime import Runtime

    first = device.name_of(device.all_devices()[0])
    compiled_on: list[str] = []
    started = threading.Event()
    compile_once, run_probe = Runtime.compile, probe_module._run

    def compile_noted(runtime, variants):
        compiled_on.append(runtime.device.name)
        started.set()
        return compile_once(runtime, variants)

    def probe_held(d):
        if device.name_of(d) == first:
            assert started.wait(60), "no build started on the first candidate during its probe"
            if fails:
                raise ValueError("the probe kernel computed wrong numbers (worst error 1)")
        return run_probe(d)

    monkeypatch.setattr(Runtime, "compile", compile_noted)
    monkeypatch.setattr(probe_module, "_run", probe_held)
    return compiled_on


def test_a_device_used_before_its_probe_failed_is_given_up_for_the_next(models, monkeypatch, tmp_path):
    """A cold verify builds on the first candidate while its probe still runs; when the probe then
    fails, what was built there is dropped and verify runs on the device chosen instead, saying
    why the first was passed over."""
    require_a_candidate_after_pocl()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no probe answer kept
    compiled_on = _first_probe_held_until_a_build(monkeypatch, fails=True)
    result = verify_model(models.path("conv_relu"), Settings(runs=2, cache_dir=""))
    first, second = (device.name_of(d) for d in device.all_devices()[:2])
    assert compiled_on == [first, second]
    assert result.passed and result.device == second
    assert "the probe kernel computed wrong numbers" in probe(device.all_devices()[0], default_dir()).why


def test_a_device_used_before_its_probe_passed_is_kept(models, monkeypatch, tmp_path):
    """When the probe passes, the early device is the one choose gives: one compile, and nothing
    left behind for the next choose."""
    first = device.all_devices()[0]
    first_works = probe(first, str(tmp_path / "elsewhere")).works  # PoCL fails on CPUs its LLVM does not know
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    compiled_on = _first_probe_held_until_a_build(monkeypatch, fails=False)
    result = verify_model(models.path("conv_relu"), Settings(runs=2, cache_dir=""))
    assert result.passed
    assert compiled_on == [device.name_of(first)] + ([] if first_works else [result.device])
    assert device._ahead_key(None, None) not in device._AHEAD
