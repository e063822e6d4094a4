"""The one tolerance rule (gpucompat/verification/tolerance.py), on the cases issue 13 named: an element
near zero in an output whose values reach 184 is judged against 184, not against itself; NaN on
one side fails, on both sides agrees."""

import numpy as np

from gpucompat.verification.tolerance import Tolerance, abs_error, default, magnitude


def test_an_element_near_zero_is_judged_against_the_outputs_magnitude():
    ref = np.array([184.0, 0.001, -3.0], np.float32)
    test = ref + np.array([1e-4, 1e-4, -1e-4], np.float32)  # 1e-4 off everywhere: 5e-7 of 184
    assert not default("fp32").failing(test, ref).any()
    assert Tolerance(1e-5, 1e-5).failing(test, ref).tolist() == [False, False, False]
    worse = ref + np.array([0.0, 0.2, 0.0], np.float32)  # 0.2 is 1.1e-3 of 184: over 1e-5 + 1e-3 x 184
    assert default("fp32").failing(worse, ref).tolist() == [False, True, False]


def test_nan_and_infinity():
    ref = np.array([1.0, np.nan, np.inf, 2.0, np.nan])
    test = np.array([np.nan, np.nan, np.inf, -np.inf, 1.0])
    assert abs_error(test, ref).tolist() == [np.inf, 0.0, 0.0, np.inf, np.inf]
    assert default("fp16").failing(test, ref).tolist() == [True, False, False, True, True]
    assert magnitude(ref) == 2.0  # finite values only


def test_fp16_is_looser_than_fp32_by_half_precision():
    ref = np.linspace(-4, 4, 9)
    half = ref.astype(np.float16).astype(np.float64) * (1 + 2e-3)  # a few half roundings
    assert default("fp32").failing(half, ref).any() and not default("fp16").failing(half, ref).any()
