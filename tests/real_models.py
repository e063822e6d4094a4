"""Real converter output: the 14 .tflite models MediaPipe 0.10.14 ships in its wheel.

They are what converters really write (fp16 weights read through DEQUANTIZE, sparse weights through
DENSIFY, MediaPipe's custom ops), so every suite that judges real-world behaviour uses them. The wheel
is fetched once from the package index with pip, its sha256 checked, and the models unpacked into a
cache outside the repository (GPUCOMPAT_TEST_CACHE, default ~/.cache/gpucompat-tests).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL = "mediapipe-0.10.14-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
WHEEL_SHA256 = "a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4"
# The models are the same bytes in every platform's wheel; one pinned wheel keeps the checksum fixed.
_PIP_TARGET = ["--platform", "manylinux2014_x86_64", "--python-version", "3.11", "--only-binary=:all:"]

NAMES = (
    "face_detection_full_range_sparse",
    "face_detection_short_range",
    "face_landmark",
    "face_landmark_with_attention",
    "hand_landmark_full",
    "hand_landmark_lite",
    "hand_recrop",
    "iris_landmark",
    "palm_detection_full",
    "palm_detection_lite",
    "pose_detection",
    "pose_landmark_full",
    "selfie_segmentation",
    "selfie_segmentation_landscape",
)


def cache_dir() -> Path:
    """Where the wheel's models are kept between test runs."""
    root = os.environ.get("GPUCOMPAT_TEST_CACHE") or Path.home() / ".cache" / "gpucompat-tests"
    return Path(root) / "mediapipe-0.10.14"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(into: Path) -> Path:
    """The pinned wheel, downloaded with pip into `into` and checked against its sha256."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(into),
           *_PIP_TARGET, "mediapipe==0.10.14"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wheel = into / WHEEL
    if _sha256(wheel) != WHEEL_SHA256:
        raise RuntimeError(f"{wheel}: sha256 differs from the pinned {WHEEL_SHA256}")
    return wheel


def fetch() -> dict[str, Path]:
    """Name -> path of each of the 14 models, downloading and unpacking the wheel on first use."""
    models = cache_dir()
    paths = {name: models / f"{name}.tflite" for name in NAMES}
    if all(p.is_file() for p in paths.values()):
        return paths
    models.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(_download(Path(tmp))) as wheel:
            for member in wheel.namelist():
                name = Path(member).stem
                if member.startswith("mediapipe/modules/") and member.endswith(".tflite") and name in paths:
                    part = paths[name].with_suffix(".part")
                    part.write_bytes(wheel.read(member))
                    part.replace(paths[name])
    missing = [n for n, p in paths.items() if not p.is_file()]
    if missing:
        raise RuntimeError(f"mediapipe 0.10.14 lacks the models {missing}")
    return paths
