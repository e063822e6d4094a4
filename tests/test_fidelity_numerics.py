"""A fixed sample of the numerics calibration grid (gpucompat/calibrate/grid.py chosen("sample"): the
hand-picked forms and one enumerated form in SAMPLE_EVERY) on LiteRT's real GPU accelerator at fp32 and fp16:
a form the accelerator computes wrongly must have its key (rules/support/forms.py) recorded wrong in
rules/support/calibration/litert_gpu.json, which is what GPU005 / PREC408 report, and the form the record
names as a key's evidence must still show it. A few minutes: 3 batched models, each compiled
twice on the software driver. The whole grid (about 34,000 forms) is recorded by
`python tools/record_grid.py`; re-record with it when this fails after a LiteRT upgrade."""


import pytest

from gpucompat.calibrate import grid as numerics_grid
from gpucompat.confirm import runner
from gpucompat.rules.support import calibration
from vulkan import without_device

pytestmark = pytest.mark.fidelity
# right and wrong forms the sample must hold, run alone too
GUARDS = ("tbl_add_85x16_c1x85x16", "tbl_pad3_mid", "add_rnnnn_cnnnn_0", "mul_rnnn_cn_0", "pad_4_1_0",
          "add_rn_cn1n_0", "softmax_n_0", "softmax_nn_0")


def _sample() -> list:
    return [*numerics_grid.chosen("sample"), *(f for f in numerics_grid.forms() if f.name in GUARDS)]


@pytest.fixture(scope="module")
def grid() -> dict:
    """The sample, run on the accelerator, by name."""
    try:
        forms = {f.name: f for f in _sample()}
        numerics_grid.run(list(forms.values()), runner.launcher())
        return forms
    except runner.NoDevice as e:
        without_device(str(e))


def _verdict(r: dict) -> str:
    return f"{'wrong' if r['wrong'] else 'right'} (cosine {r['cosine']}, max error {r['max_error']})"


def test_every_form_computed_wrongly_is_recorded_wrong(grid):
    recorded = calibration.load()["forms"]
    missed = [f"{f.name} [{f.key}] {p}: accelerator {_verdict(got)}, recorded {recorded.get(f.key, {}).get(p)}"
              for f in grid.values() for p, got in f.result.items()
              if got["wrong"] and calibration.status(f.key, p) != "wrong"]
    assert not missed, "\n".join(missed)


def test_every_key_s_evidence_still_shows(grid):
    """The form a key's record names as its evidence gets the recorded verdict again, unless
    either verdict is one the drawn values decide (the sample's batches draw other values)."""
    recorded = calibration.load()["forms"]
    evidence = [(f, p, got, recorded[f.key][p]) for f in grid.values() if f.key in recorded
                for p, got in f.result.items() if recorded[f.key][p]["example"].startswith(f"{f.name}:")]
    settled = [(f, p, got, was) for f, p, got, was in evidence
               if not numerics_grid.near_threshold(got, p) and not numerics_grid.near_threshold(was, p)]
    assert len(settled) > 0.9 * len(evidence) > 0, "most evidence is far from the noise threshold"
    disagree = [f"{f.name} [{f.key}] {p}: accelerator {_verdict(got)}, recorded {was}"
                for f, p, got, was in settled if was["wrong"] != got["wrong"]]
    assert not disagree, "\n".join(disagree)


def test_every_measured_form_has_its_key_recorded(grid):
    unrecorded = [(f.name, f.key) for f in grid.values()
                  if f.result and calibration.status(f.key, "fp32") == "unmeasured"]
    assert not unrecorded


def test_the_grid_finds_both_kinds(grid):
    """Guards the grid itself: the issue's forms are wrong, their rank-4 twins right."""
    for name in ("tbl_pad3_mid", "tbl_add_85x16_c1x85x16", "tbl_mul_512x1024_c1x1x1024", "tbl_add_scalar_arange",
                 "tbl_add_4096x256_same", "add_rn_cn1n_0", "softmax_n_0"):
        assert grid[name].result["fp32"]["wrong"], name
    for name in ("pad_4_1_0", "add_rnnnn_cnnnn_0", "tbl_add_4d_big_same", "softmax_nn_0"):
        assert not grid[name].result["fp32"]["wrong"], name
    assert grid["sum_long_big"].result["fp16"]["wrong"] and not grid["sum_long_big"].result["fp32"]["wrong"]


def test_embedding_lookup_of_a_rank_2_table_is_delegated_and_right(grid):
    """Its batch ran fully delegated (a batch must), and the values are the CPU's."""
    lookups = [f for f in grid.values() if f.key == "EMBEDDING_LOOKUP rank 2"]
    assert len(lookups) == 2 and not any(r["wrong"] for f in lookups for r in f.result.values())


def test_a_form_alone_computes_as_in_the_batch(grid):
    """Batching keeps forms independent: wrong and right forms, each in a model of its own, get
    the verdicts they got among the others."""
    names = ("tbl_add_85x16_c1x85x16", "pad_4_1_0", "add_rnnnn_cnnnn_0", "add_rn_cn1n_0")
    fresh = {f.name: f for f in numerics_grid.forms() if f.name in names}
    for name in names:
        numerics_grid.run([fresh[name]], runner.launcher())
        for precision in numerics_grid.NOISE:
            assert fresh[name].result[precision]["wrong"] == grid[name].result[precision]["wrong"], (name, precision)
