"""The numerics calibration grid (tests/numerics_grid.py) on LiteRT's real GPU accelerator at fp32
and fp16: every form's verdict (computed right or wrong against the CPU) must be the one
rules/calibration/litert_gpu.json records for its form key, which is what GPU005 reports.
About a minute: 8 batched models, each compiled twice (fp32, fp16) on the software driver.

When this fails after a LiteRT upgrade, re-record with `python tests/numerics_grid.py`."""


import pytest

import numerics_grid
from gpucompat.confirm import runner
from gpucompat.rules import calibration
from vulkan import without_device

pytestmark = pytest.mark.fidelity


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> list:
    """Every grid form, run on the accelerator."""
    try:
        runner.launcher()
        return numerics_grid.run_grid(str(tmp_path_factory.mktemp("numerics")))
    except runner.NoDevice as e:
        without_device(str(e))


def test_every_form_computes_as_recorded(grid):
    recorded = calibration.load()["forms"]
    disagree = []
    for f in grid:
        want = recorded.get(f.key)
        for precision, got in f.result.items():
            if want is None or want[precision]["wrong"] != got["wrong"]:
                disagree.append(f"{f.name} [{f.key}] {precision}: accelerator "
                                f"{'wrong' if got['wrong'] else 'right'} (cosine {got['cosine']}, max error "
                                f"{got['max_error']}), recorded {want and want[precision]}")
    assert not disagree, "\n".join(disagree)


def test_the_record_has_no_form_the_grid_lacks(grid):
    assert set(calibration.load()["forms"]) == {f.key for f in grid if f.key}


def test_the_grid_finds_both_kinds(grid):
    """Guards the grid itself: the issue's table forms are wrong, their rank-4 twins right."""
    by_name = {f.name: f for f in grid}
    for name in ("tbl_pad3_mid", "tbl_add_85x16_c1x85x16", "tbl_mul_512x1024_c1x1x1024", "tbl_add_scalar_arange",
                 "tbl_add_4096x256_same"):
        assert by_name[name].result["fp32"]["wrong"], name
    for name in ("pad_r4_a1", "add_r4_c4", "tbl_add_4d_big_same"):
        assert not by_name[name].result["fp32"]["wrong"], name
    assert by_name["sum_long_big"].result["fp16"]["wrong"] and not by_name["sum_long_big"].result["fp32"]["wrong"]


def test_embedding_lookup_of_a_rank_2_table_is_delegated_and_right(grid):
    """Its batch ran fully delegated (a batch must), and the values are the CPU's."""
    lookups = [f for f in grid if f.key == "EMBEDDING_LOOKUP rank 2"]
    assert len(lookups) == 2 and not any(r["wrong"] for f in lookups for r in f.result.values())


def test_a_form_alone_computes_as_in_the_batch(grid, tmp_path):
    """Batching keeps forms independent: two wrong and two right forms, each in a model of its
    own, get the verdicts they got among the others."""
    by_name = {f.name: f for f in grid}
    names = ("tbl_add_85x16_c1x85x16", "pad_r3_a1", "add_r4_c4", "mul_r3_c1")
    fresh = {f.name: f for f in numerics_grid.forms() if f.name in names}
    for name in names:
        numerics_grid.run_batch([fresh[name]], str(tmp_path / f"{name}.tflite"))
        for precision in numerics_grid.NOISE:
            assert fresh[name].result[precision]["wrong"] == by_name[name].result[precision]["wrong"], (name, precision)
