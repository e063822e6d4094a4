"""`--inputs DIR`: a directory of images as representative inputs for check, verify and fix, on the
MediaPipe models (one float image input, normalization in their TFLite metadata) and a full-int8
model. The images are drawn here: a person-like bust, discs on a dark background."""

import json

import numpy as np
import pytest
from PIL import Image, ImageDraw

import models_analyses  # noqa: F401  (registers int8_io_conv)
import models_fix  # noqa: F401  (registers stb_same_bias_relu)
import models_realworld  # noqa: F401  (registers rw_dynamic_range_fc)
from cli import gpucompat
from gpucompat import ir
from gpucompat.sample_inputs import load
from gpucompat.verification import inputs
from gpucompat.verification.interpreter import reference_interpreter, run_reference


def _bust() -> Image.Image:
    """A head-and-shoulders silhouette on a plain blue wall, as a selfie camera frames a person."""
    image = Image.new("RGB", (256, 256), (70, 110, 160))
    draw = ImageDraw.Draw(image)
    draw.ellipse((40, 170, 216, 330), fill=(40, 40, 60))  # shoulders
    draw.rectangle((110, 130, 146, 180), fill=(210, 160, 130))  # neck
    draw.ellipse((88, 50, 168, 150), fill=(220, 170, 140))  # face
    draw.ellipse((86, 40, 170, 95), fill=(50, 30, 20))  # hair
    return image


def _discs(directory, count: int = 3):
    """`count` bright discs on a dark background, of other sizes than the models' inputs, PNG and JPEG."""
    directory.mkdir()
    for i in range(count):
        image = Image.new("RGB", (320, 240), (20, 30, 40))
        r = 40 + 25 * i
        ImageDraw.Draw(image).ellipse((160 - r, 120 - r, 160 + r, 120 + r), fill=(240, 200 - 40 * i, 180))
        image.save(directory / (f"disc{i}.jpg" if i % 2 else f"disc{i}.png"))
    (directory / "notes.txt").write_text("not an image: left alone")
    return str(directory)


def _json(command: str, *args) -> tuple:
    r = gpucompat(command, *args, "--format", "json", *(("--cache-dir", "") if command == "verify" else ()),
                  timeout=600)
    return r, (json.loads(r.stdout) if r.stdout.strip() else None)


def test_verify_runs_once_per_image_and_says_how_they_were_normalized(real_models, tmp_path):
    images = _discs(tmp_path / "discs")
    r, doc = _json("verify", str(real_models["selfie_segmentation"]), "--inputs", images)
    assert r.returncode == 0, r.stderr
    assert doc["passed"] and doc["runs"] == 3
    # the model's metadata says (pixel - 0) / 255, and the output says it used it
    assert "3 image(s)" in doc["inputs"] and "resized to 256x256" in doc["inputs"]
    assert "(pixel - 0) / 255 (the model's TFLite metadata)" in doc["inputs"]


def test_normalization_flags_win_over_the_metadata_and_change_the_values_fed(real_models, tmp_path):
    images = _discs(tmp_path / "discs", 2)
    model = str(real_models["hand_landmark_lite"])
    _, by_metadata = _json("verify", model, "--inputs", images)
    r, by_flag = _json("verify", model, "--inputs", images, "--input-range", "-1,1")
    assert r.returncode == 0, r.stderr
    assert "--input-range -1,1" in by_flag["inputs"] and "metadata" not in by_flag["inputs"]
    assert [o["max_ref_abs"] for o in by_flag["outputs"]] != [o["max_ref_abs"] for o in by_metadata["outputs"]]


def test_check_on_images_records_value_ranges_and_flags_reach_them(real_models, tmp_path):
    images = _discs(tmp_path / "discs", 2)
    model = str(real_models["hand_landmark_lite"])
    r, doc = _json("check", model, "--inputs", images, "--select", "PREC")
    assert r.returncode == 0, r.stderr
    (rec,) = doc["models"]
    assert rec["error"] is None and "2 image(s)" in rec["inputs"]
    assert not [f for f in rec["findings"] if f["code"] in ("PREC403", "PREC404")]  # [0, 1] images stay in fp16
    # the same images fed as pixel x 10000 push the first convolution past 65504
    r, doc = _json("check", model, "--inputs", images, "--select", "PREC", "--input-std", "0.0001")
    (rec,) = doc["models"]
    assert r.returncode == 1 and "--input-mean / --input-std" in rec["inputs"]
    assert any(f["code"] == "PREC403" for f in rec["findings"])
    terminal = gpucompat("check", model, "--inputs", images, "--select", "PREC")
    assert "value ranges on: " in terminal.stdout and "2 image(s)" in " ".join(terminal.stdout.split())


def test_check_on_images_runs_the_segmenter_with_its_custom_transposed_convolution(real_models, tmp_path):
    """selfie_segmentation ends in MediaPipe's Convolution2DTransposeBias, which the value-range pass
    runs as its builtin twin (as verify does) instead of refusing the model."""
    (tmp_path / "person").mkdir()
    _bust().save(tmp_path / "person" / "bust.png")
    r, doc = _json("check", str(real_models["selfie_segmentation"]), "--inputs", str(tmp_path / "person"))
    (rec,) = doc["models"]
    assert r.returncode == 0 and rec["error"] is None and "1 image(s)" in rec["inputs"], r.stderr
    assert not [f for f in rec["findings"] if f["code"] in ("PREC403", "PREC404")]


def test_segmentation_of_a_drawn_person_is_not_zero_as_on_noise(real_models, tmp_path):
    """The issue's point: random noise is a weak oracle, a segmenter's mask is ~0 on it."""
    (tmp_path / "person").mkdir()
    _bust().save(tmp_path / "person" / "bust.png")
    path = str(real_models["selfie_segmentation"])
    data = open(path, "rb").read()
    model = ir.from_bytes(data, path)
    interpreter = reference_interpreter(data, path)
    (feeds,) = load(str(tmp_path / "person"), model).values
    (mask,) = run_reference(interpreter, feeds)
    noise_masks = [run_reference(interpreter, f)[0] for f in inputs.seeded(inputs.specs(model.graphs[0]), 0, 3)]
    assert mask[0, 100, 128, 0] > 0.5 and mask[0, 5, 5, 0] < 0.5  # the face is the person, the wall is not
    assert mask.mean() > 0.1 and max(m.mean() for m in noise_masks) < 0.01


def test_a_photo_is_fed_upright_as_its_exif_orientation_says(real_models, tmp_path):
    """A camera stores a portrait shot sideways with orientation 6 (rotate 90 clockwise to view)."""
    upright = _bust().resize((192, 256))
    (tmp_path / "viewer").mkdir()
    (tmp_path / "camera").mkdir()
    upright.save(tmp_path / "viewer" / "a.png")
    exif = Image.Exif()
    exif[0x0112] = 6
    upright.transpose(Image.Transpose.ROTATE_90).save(tmp_path / "camera" / "a.jpg", exif=exif, quality=95)
    model = ir.from_bytes(open(real_models["selfie_segmentation"], "rb").read())
    (as_viewed,), (as_shot,) = (load(str(tmp_path / d), model).values[0] for d in ("viewer", "camera"))
    assert np.abs(as_viewed - as_shot).mean() < 0.02  # JPEG's loss only, on values in [0, 1]


def test_a_quantized_image_input_gets_its_quantized_values(models, tmp_path):
    images = _discs(tmp_path / "discs", 2)
    r, doc = _json("verify", models.path("int8_io_conv"), "--inputs", images, "--input-range", "-1,1")
    assert r.returncode == 0, r.stderr
    assert doc["runs"] == 2 and "quantized with scale" in doc["inputs"]
    r, doc = _json("verify", models.path("int8_io_conv"), "--inputs", images)
    assert r.returncode == 0 and "pixels - 128 fed as int8" in doc["inputs"]


def test_fix_verifies_on_the_images(models, tmp_path):
    """An atrous convolution on a [1, 13, 13, 4] input: the images come in as RGBA, 13x13."""
    images = _discs(tmp_path / "discs", 2)
    out = tmp_path / "fixed.tflite"
    r, doc = _json("fix", models.path("stb_same_bias_relu"), "-o", str(out), "--inputs", images)
    assert r.returncode == 0, r.stderr
    v = doc["verification"]
    assert doc["applied"] and v["ok"] and out.exists()
    assert "2 image(s), RGBA, resized to 13x13" in v["inputs"] and "default [0, 1]" in v["inputs"]


@pytest.mark.parametrize("case", ["empty", "unreadable", "no_image_input", "channels", "bad_range", "zero_std",
                                  "both_flags", "flag_on_npz", "flag_without_inputs"])
def test_bad_image_inputs_are_one_line_errors(case, real_models, models, tmp_path):
    model = str(real_models["hand_landmark_lite"])
    images = _discs(tmp_path / "discs", 1)
    npz = tmp_path / "samples.npz"
    np.savez(npz, x=np.zeros((1, 1, 224, 224, 3), np.float32))
    (tmp_path / "empty").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    args, named = {
        "empty": (["--inputs", str(tmp_path / "empty")], str(tmp_path / "empty")),
        "unreadable": (["--inputs", str(tmp_path / "broken")], str(tmp_path / "broken" / "a.png")),
        "no_image_input": (["--inputs", images], "one image input"),
        "channels": (["--inputs", images, "--input-mean", "1,2"], "2 mean values"),
        "bad_range": (["--inputs", images, "--input-range", "1,0"], "--input-range"),
        "zero_std": (["--inputs", images, "--input-std", "0"], "--input-std"),
        "both_flags": (["--inputs", images, "--input-range", "0,1", "--input-mean", "3"], "exclude each other"),
        "flag_on_npz": (["--inputs", str(npz), "--input-range", "0,1"], str(npz)),
        "flag_without_inputs": (["--input-range", "0,1"], "need --inputs"),
    }[case]
    if case == "no_image_input":
        model = models.path("rw_dynamic_range_fc")
    out = tmp_path / "fixed.tflite"
    for command, extra in (("verify", ["--cache-dir", ""]), ("check", []), ("fix", ["-o", str(out)])):
        r = gpucompat(command, model, *args, *extra, timeout=300)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and named in r.stderr, (command, r.stderr)
        assert "Traceback" not in r.stderr and not out.exists()
