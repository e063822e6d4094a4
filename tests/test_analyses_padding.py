"""Channel-padding waste against numbers worked out by hand: a [1,2,2,C] tensor holds 4*C useful
elements and 4*align4(C) stored ones."""

import pytest

from analysis_helpers import analyses_of

# C -> (useful, stored) elements of a [1, 2, 2, C] tensor, by hand.
BY_HAND = {1: (4, 16), 2: (8, 16), 3: (12, 16), 5: (20, 32), 6: (24, 32), 7: (28, 32), 9: (36, 48)}


def test_odd_channel_counts(models):
    _, a = analyses_of(models.path("channels_1_to_9"))
    cp = a.channel_padding
    # every input and every TANH output: 7 channel counts, two tensors each
    assert sorted((t.channels, t.useful_elements, t.padded_elements) for t in cp.tensors) == sorted(
        (c, u, p) for c, (u, p) in BY_HAND.items() for _ in range(2))
    assert (cp.useful_elements, cp.padded_elements) == (2 * 4 * 33, 2 * 4 * 48)  # 33 = 1+2+3+5+6+7+9
    assert cp.waste_ratio == pytest.approx(120 / 384)
    assert sorted(t.channels for t in cp.tensors if t.single_texture_possible) == [1, 1, 2, 2, 3, 3]
    # C = 1, 5 and 9 each pad 12 floats, the most of any; the tie goes to the lowest tensor index,
    # the C = 1 input (the inputs come first, in ODD_CHANNELS order)
    worst = cp.tensors[0]
    assert (worst.channels, worst.index, worst.wasted_bytes) == (1, 0, 12 * 4)
    assert [t.channels for t in cp.tensors[:6]] == [1, 5, 9, 1, 5, 9]


def test_convolution_macs(models):
    # conv 3 -> 5 then 5 -> 8 over 2x2 pixels, 1x1 kernels:
    #   useful 4*5*3 = 60 and 4*8*5 = 160; padded 4*8*4 = 128 and 4*8*8 = 256
    _, a = analyses_of(models.path("conv_3_5_8"))
    cp = a.channel_padding
    assert sorted((o.useful_macs, o.padded_macs) for o in cp.ops) == [(60, 128), (160, 256)]
    assert (cp.useful_elements, cp.padded_elements) == (12 + 20 + 32, 16 + 32 + 32)
    assert cp.waste_ratio == pytest.approx(16 / 80)


def test_multiples_of_four_waste_nothing(models):
    _, a = analyses_of(models.path("conv_4_8"))
    cp = a.channel_padding
    assert cp.waste_ratio == 0 and cp.useful_elements == cp.padded_elements == 16 + 32
    assert [(o.useful_macs, o.padded_macs) for o in cp.ops] == [(4 * 8 * 4, 4 * 8 * 4)]


def test_cpu_ops_are_not_counted(models):
    # gather_nd_island: only MUL, ADD, TANH on [2,4,4] run on the GPU (C = 4: no waste); the
    # 4-channel conv on the CPU and its input are not GPU tensors.
    _, a = analyses_of(models.path("gather_nd_island"))
    assert {tuple(t.shape) for t in a.channel_padding.tensors} == {(2, 4, 4)}
    assert a.channel_padding.ops == []
