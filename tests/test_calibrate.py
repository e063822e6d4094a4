"""`gpucompat calibrate`: the installed LiteRT measured on the real accelerator gives a profile
file that `--profile PATH` reads, and calibrating 2.3.0 reproduces litert-mldrift on the
calibration probes and on a sample of the suite's models, and its sampled numerics grid the
shipped form table; each other release set up on the machine reproduces its own
litert-mldrift@RELEASE; without a Vulkan device nothing is written.
A hand-written profile file shows each kind of measured difference applied."""

import json

import pytest

import gpucompat
from cli import gpucompat as run_cli
from gpucompat.calibrate import document, measure
from gpucompat.calibrate import grid as calibrate_grid
from gpucompat.confirm import runner
from gpucompat.rules.support import calibration, probes, profile_file
from gpucompat.rules.support.profiles.litert_mldrift_releases import STABLE
from test_confirm import no_device_env
from test_fidelity import NAMES
from test_fidelity_releases import OTHER_RELEASES, release_launcher
from vulkan import gate, without_device

SAMPLE = NAMES[::12]  # a spread of the suite's generated models (TensorFlow's converter)


def verdict(path: str, profile: str) -> tuple:
    """What a user reads from `check`: each op's placement, the failure, the rejected op types."""
    rec = gpucompat.check(path, profile=profile)
    return (rec["summary"]["ops_gpu"], rec["summary"]["delegation_fails"],
            sorted((u["op"], u["layer"]) for u in rec["unsupported"]))


def probe_files(tmp_path) -> dict[str, str]:
    """Every calibration probe written to a file, by point."""
    out = {}
    for i, p in enumerate(probes.corpus()):
        path = tmp_path / f"probe_{i}.tflite"
        path.write_bytes(p.write())
        out[p.point] = str(path)
    return out


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory) -> tuple[str, str]:
    """`gpucompat calibrate` run on the installed release: (the file, the command's output)."""
    path = str(tmp_path_factory.mktemp("calibrate") / "installed.json")
    r = run_cli("calibrate", "-o", path, timeout=1800)  # the sampled grid: a minute alone, ten under load
    gate(r)
    assert r.returncode == 0, r.stderr
    return path, r.stdout


@pytest.mark.fidelity
def test_calibrating_the_installed_release_reproduces_litert_mldrift(calibrated, tmp_path):
    path, said = calibrated
    doc = json.loads(open(path).read())
    assert doc["litert"] == STABLE and doc["device"] and doc["calibrated"]
    assert f"calibrated LiteRT {STABLE}'s GPU accelerator on" in said and f"--profile {path}" in said
    measured = [p for p in doc["points"] if p["observed"] is not None]
    assert len(measured) == len(probes.corpus())
    assert {p["observed"] for p in measured} == {"gpu", "cpu", "fails"}, "the probes cover every outcome"
    wrong = [f"{p['point']}: runtime {p['observed']} ({p['message']}), litert-mldrift {p['predicted']}"
             for p in measured if p["observed"] != p["predicted"]]
    assert not wrong, "\n".join(wrong)
    differ = [point for point, f in probe_files(tmp_path).items()
              if verdict(f, path) != verdict(f, "litert-mldrift")]
    assert not differ


@pytest.mark.fidelity
def test_the_sampled_grid_reproduces_the_shipped_table(calibrated):
    grid = json.loads(open(calibrated[0]).read())["grid"]
    assert grid["run"] == "sample" and grid["forms"] == len(calibrate_grid.chosen("sample"))
    shipped = calibration.load()["forms"]
    both = [k for k in grid["table"] if k in shipped]
    assert len(both) > 0.9 * len(grid["table"])
    assert {k for k in both if grid["table"][k]["fp32"]["wrong"]}, "the sample holds forms computed wrongly"
    pairs = [(k, p) for k in both for p in ("fp32", "fp16")]
    settled = [(k, p) for k, p in pairs if not calibrate_grid.near_threshold(grid["table"][k][p], p, k)
               and not calibrate_grid.near_threshold(shipped[k][p], p, k)]
    assert len(settled) > 0.97 * len(pairs), "most verdicts are far from the noise threshold"
    differ = [f"{k} at {p}: measured {grid['table'][k][p]}, shipped {shipped[k][p]}"
              for k, p in settled if grid["table"][k][p]["wrong"] != shipped[k][p]["wrong"]]
    assert not differ, "\n".join(differ)


@pytest.mark.fidelity
def test_the_file_judges_the_forms_its_grid_ran(calibrated, tmp_path):
    """A form the sampled grid measured wrong is GPU005 under the file as under litert-mldrift; a
    right one is not; a keyed form the sample never ran is GPU007 under the file."""
    path = calibrated[0]
    table = json.loads(open(path).read())["grid"]["table"]
    shipped = calibration.load()["forms"]
    sampled = {f.name: (f, _key(f, tmp_path)) for f in calibrate_grid.chosen("sample")}
    wrong = next(f for f, k in sampled.values() if k in table and k in shipped and table[k]["fp32"]["wrong"])
    right = next(f for f, k in sampled.values() if k in table and k in shipped
                 and not table[k]["fp32"]["wrong"] and not table[k]["fp16"]["wrong"])
    unmeasured = next(f for f in calibrate_grid.forms() if f.name not in sampled and _key(f, tmp_path) not in table)
    for form, under_file, under_mldrift in ((wrong, True, True), (right, False, False)):
        model = _model(form, tmp_path)
        assert ("GPU005" in _codes(model, path)) is under_file, form.name
        assert ("GPU005" in _codes(model, "litert-mldrift")) is under_mldrift, form.name
    assert "GPU007" in _codes(_model(unmeasured, tmp_path), path)


def _model(form, tmp_path) -> str:
    from gpucompat.ir.build import Sketch

    s = Sketch()
    s.output(form.write(s, "f"))
    path = tmp_path / f"{form.name}.tflite"
    path.write_bytes(s.to_bytes())
    return str(path)


def _key(form, tmp_path) -> str | None:
    from gpucompat import ir
    from gpucompat.rules.support.forms import form_of

    return form_of(ir.load(_model(form, tmp_path)).graphs[0].outputs[0].producer)


def _codes(path: str, profile: str) -> set[str]:
    return {f["code"] for f in gpucompat.check(path, profile=profile)["findings"]}


@pytest.mark.fidelity
def test_the_calibrated_file_checks_the_suite_as_litert_mldrift(calibrated, models):
    path, _ = calibrated
    rec = gpucompat.check(models.path(SAMPLE[0]), profile=path)
    assert rec["profile"] == path and rec["release"] == STABLE
    differ = [n for n in SAMPLE if verdict(models.path(n), path) != verdict(models.path(n), "litert-mldrift")]
    assert not differ


@pytest.mark.fidelity
@pytest.mark.parametrize("release", OTHER_RELEASES)
def test_calibrating_another_release_reproduces_its_profile(release, tmp_path):
    try:
        m = measure.measure(release_launcher(release))
    except runner.NoDevice as e:
        without_device(str(e))
    assert m.litert == release
    assert any(p.differs for p in m.points), f"the probes do not tell LiteRT {release} from {STABLE}"
    path = str(tmp_path / f"{release}.json")
    document.write(m, path)
    differ = [point for point, f in probe_files(tmp_path).items()
              if verdict(f, path) != verdict(f, f"litert-mldrift@{release}")]
    assert not differ


@pytest.mark.parametrize("grid", ["none", "sample"])
def test_without_a_vulkan_device_nothing_is_written(tmp_path, grid):
    out = tmp_path / "p.json"
    r = run_cli("calibrate", "-o", str(out), "--grid", grid, "--vulkan-dir", no_device_env(tmp_path))
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "no Vulkan device" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def hand_written(tmp_path, *points: tuple[str, str, str]) -> str:
    """A profile file stating what the runtime did at some points: (point, predicted, observed)."""
    path = tmp_path / "hand.json"
    path.write_text(json.dumps({"format": profile_file.FORMAT, "base": "litert-mldrift", "litert": "9.9.9",
                                "device": "Hand GPU", "driver": "none", "calibrated": "2030-01-01T00:00:00Z",
                                "points": [{"point": p, "predicted": b, "observed": o, "message": None}
                                           for p, b, o in points]}))
    return str(path)


def test_each_kind_of_measured_difference_moves_the_verdict(tmp_path):
    files = probe_files(tmp_path)
    path = hand_written(tmp_path, ("GATHER: several constant indices", "gpu", "fails"),
                        ("TANH v3", "cpu", "gpu"), ("LOG_SOFTMAX", "cpu", "gpu"), ("ADD", "gpu", "cpu"),
                        ("SUB: both operands the same tensor", "cpu", "gpu"), ("GATHER", "gpu", "gpu"),
                        ("CONV_2D v6", "gpu", "fails"))
    assert verdict(files["GATHER: several constant indices"], path)[:2] == (0, True)
    assert verdict(files["GATHER"], path) == (1, False, [])  # one constant index: not that form
    assert verdict(files["GATHER: runtime indices"], path) == (1, False, [])
    assert verdict(files["TANH v3"], path)[0] == 1 and verdict(files["TANH v3"], "litert-mldrift")[0] == 0
    assert verdict(files["LOG_SOFTMAX"], path)[0] == 1
    assert verdict(files["ADD"], path) == (0, False, [("ADD", "partition")])
    assert verdict(files["SUB: both operands the same tensor"], path)[0] == 1
    assert verdict(files["CONV_2D v6"], path)[:2] == (0, True) and verdict(files["CONV_2D"], path)[0] == 1
    rec = gpucompat.check(files["GATHER: several constant indices"], profile=path)
    assert rec["profile"] == path and rec["release"] == "9.9.9"
    assert "measured to fail to build (LiteRT 9.9.9 on Hand GPU at 2030-01-01" in rec["unsupported"][0]["reason"]
    r = run_cli("check", files["GATHER"], "--profile", path)
    assert f"[{path} (LiteRT 9.9.9), backend cl]" in r.stdout


@pytest.mark.parametrize("content, problem", [
    (None, "cannot read the profile file"),
    ("{not json", "not a calibrated profile file"),
    ('{"format": "something else"}', "not a calibrated profile file"),
    ('{"format": "gpucompat-calibrated-profile/1", "base": "gpu-current", "points": []}',
     "calibrated against 'gpu-current'"),
    ('{"format": "gpucompat-calibrated-profile/1", "base": "litert-mldrift", "points": [{"point": "ADD"}]}',
     "a point of the profile file lacks 'observed'"),
    ('{"format": "gpucompat-calibrated-profile/1", "base": "litert-mldrift", "points": [], "grid": {}}',
     'its "grid" has no "table"'),
])
def test_a_bad_profile_file_is_one_line_and_exit_2(tmp_path, content, problem):
    path = tmp_path / "p.json"
    if content is not None:
        path.write_text(content)
    model = tmp_path / "m.tflite"
    model.write_bytes(probes.by_point("ADD").write())
    r = run_cli("check", str(model), "--profile", str(path))
    assert r.returncode == 2 and str(path) in r.stderr and problem in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_point_this_version_does_not_know_is_named(tmp_path):
    path = hand_written(tmp_path, ("WARP_DRIVE", "cpu", "gpu"))
    model = tmp_path / "m.tflite"
    model.write_bytes(probes.by_point("ADD").write())
    r = run_cli("check", str(model), "--profile", path)
    assert r.returncode == 2 and "'WARP_DRIVE' is not one this gpucompat measures" in r.stderr


def test_the_grid_reaches_every_key_of_the_shipped_table():
    """The one grid writes a form of every key the shipped table records, so recording the table
    anew with it (tools/record_grid.py) loses none."""
    from gpucompat import ir
    from gpucompat.ir.build import Sketch
    from gpucompat.rules.support.forms import form_of

    forms, reached = calibrate_grid.forms(), set()
    for i in range(0, len(forms), calibrate_grid.BATCH):
        s = Sketch()
        s.output(*(f.write(s, f"f{j}") for j, f in enumerate(forms[i:i + calibrate_grid.BATCH])))
        reached |= {form_of(t.producer) for t in ir.from_bytes(s.to_bytes()).graphs[0].outputs}
    missing = sorted(set(calibration.load()["forms"]) - reached)
    assert not missing, missing[:20]


def test_a_quantized_output_one_step_off_is_right():
    """A full-int8 form rounds to the neighbouring step where the CPU's int8 kernel does not:
    within one quantization step of the output it is right, two steps off it is wrong, and an
    output of a step or two whose values point elsewhere is wrong."""
    import numpy as np

    want = np.arange(-64, 64) * 0.25
    one, two = want.copy(), want.copy()
    one[3] += 0.25
    two[3] += 0.5
    assert calibrate_grid.judge(one, want, "fp16")["wrong"]  # 0.25 of a largest output of 16: past 1e-2
    assert not calibrate_grid.judge(one, want, "fp16", step=0.25)["wrong"]
    assert calibrate_grid.judge(two, want, "fp16", step=0.25)["wrong"]
    assert calibrate_grid.judge(np.array([0.25, 0.0]), np.array([0.0, 0.25]), "fp16", step=0.25)["wrong"]


def test_at_fp16_a_moved_value_past_halfs_range_is_right_as_an_infinity_of_its_sign():
    """A causal mask's -1e9 fill through SELECT_V2: half cannot hold it, so the accelerator's -inf
    at fp16 is right for an op that moves values (softmax reads both as 0); at fp32 it is wrong, and
    so is an infinity of the other sign, one where the CPU's value fits in half, and an op that
    computes past half's range (a long SUM)."""
    import numpy as np

    want = np.array([0.5, -1.0, -1e9, 2.0])
    got = np.array([0.5, -1.0, -np.inf, 2.0])
    assert not calibrate_grid.judge(got, want, "fp16", moves=True)["wrong"]
    assert calibrate_grid.judge(got, want, "fp16")["wrong"]
    assert calibrate_grid.judge(got, want, "fp32", moves=True)["wrong"]
    assert calibrate_grid.judge(np.array([0.5, -1.0, np.inf, 2.0]), want, "fp16", moves=True)["wrong"]
    assert calibrate_grid.judge(np.array([0.5, -np.inf, -np.inf, 2.0]), want, "fp16", moves=True)["wrong"]
