"""`gpucompat doctor`'s account of the Vulkan driver `confirm` would load: the set-up named by
$GPUCOMPAT_VULKAN_DIR/env.sh, each driver file with its library, how to get one when none is
there, and whether `confirm` can run (a probe model compiled on LiteRT's accelerator). (The OpenCL
half is in tests/test_device_choice.py.)"""

import json

from cli import gpucompat
from gl import without_gl
from vulkan import without_device


def vulkan_setup(tmp_path, monkeypatch, library: str) -> str:
    """A set-up directory whose env.sh names one Vulkan driver file pointing at `library`."""
    icd = tmp_path / "lvp_icd.json"
    icd.write_text(json.dumps({"file_format_version": "1.0.0", "ICD": {"library_path": library, "api_version": "1.3"}}))
    (tmp_path / "env.sh").write_text(f"export VK_ICD_FILENAMES={icd} VK_DRIVER_FILES={icd}\n")
    monkeypatch.setenv("GPUCOMPAT_VULKAN_DIR", str(tmp_path))
    return str(icd)


def test_a_driver_whose_library_is_missing_is_no_driver_and_doctor_says_how_to_get_one(tmp_path, monkeypatch):
    icd = vulkan_setup(tmp_path, monkeypatch, str(tmp_path / "libvulkan_lvp.so"))
    doc = json.loads(gpucompat("doctor", "--format", "json").stdout)
    vk = doc["vulkan"]
    assert vk["setup"] == f"the Vulkan driver set up in {tmp_path}"
    assert vk["drivers"] == [{"file": icd, "library": str(tmp_path / "libvulkan_lvp.so"), "library_present": False}]
    assert not vk["available"] and "Mesa >= 23 lavapipe" in vk["how_to_get_one"]
    text = gpucompat("doctor").stdout
    assert f"{icd}: {tmp_path / 'libvulkan_lvp.so'} (missing)" in text
    assert "no Vulkan driver found" in text
    assert "confirm cannot run here: no Vulkan device that LiteRT's GPU accelerator can use" in text
    assert not doc["confirm_can_run"] and doc["vulkan"]["confirm"]["why"] == vk["how_to_get_one"]


def test_a_listed_driver_that_cannot_load_is_available_but_confirm_cannot_run(tmp_path, monkeypatch):
    library = tmp_path / "libvulkan_lvp.so"
    library.write_bytes(b"\x7fELF")
    vulkan_setup(tmp_path, monkeypatch, str(library))
    doc = json.loads(gpucompat("doctor", "--format", "json").stdout)
    assert doc["vulkan"]["available"] and doc["vulkan"]["drivers"][0]["library_present"]
    assert set(doc) == {"python", "packages", "opencl", "program_cache", "vulkan", "gl_delegate", "verify_can_run",
                        "confirm_can_run", "confirm_gl_can_run"}
    assert not doc["confirm_can_run"] and "Mesa >= 23 lavapipe" in doc["vulkan"]["confirm"]["why"]


def test_doctor_says_confirm_runs_when_the_accelerator_compiles_its_probe():
    doc = json.loads(gpucompat("doctor", "--format", "json").stdout)
    if not doc["confirm_can_run"] and "no Vulkan device" in doc["vulkan"]["confirm"]["why"]:
        without_device(doc["vulkan"]["confirm"]["why"])
    assert doc["confirm_can_run"] and doc["vulkan"]["confirm"]["why"] is None
    assert "confirm runs: LiteRT's GPU accelerator compiled a probe model" in gpucompat("doctor").stdout
    assert doc["packages"]["pyopencl"] and doc["packages"]["ai-edge-litert"]


def test_doctor_says_whether_the_classic_gl_delegate_runs(tmp_path):
    """Without its set-up: why, in the delegate's own line; with it, the probe model delegated."""
    empty = {"GPUCOMPAT_GL_DIR": str(tmp_path)}
    doc = json.loads(gpucompat("doctor", "--format", "json", env=empty).stdout)
    assert not doc["confirm_gl_can_run"] and f"{tmp_path}/libgl_shim.so: no such file" in doc["gl_delegate"]["why"]
    text = gpucompat("doctor", env=empty).stdout
    assert "confirm --delegate gl cannot run here: the classic GL delegate cannot run here" in text
    doc = json.loads(gpucompat("doctor", "--format", "json").stdout)
    if not doc["confirm_gl_can_run"]:
        without_gl(doc["gl_delegate"]["why"])
    assert doc["gl_delegate"]["why"] is None
