"""Reshape hotspots: bytes written per inference, by hand (float32 = 4 bytes)."""

from analysis_helpers import analyses_of


def test_costly_data_movement_ranked_by_bytes(models):
    _, a = analyses_of(models.path("reshapes"))
    found = [(h.op, h.bytes_moved, h.placement) for h in a.hotspots]
    # concat [1,4,4,6]x2 on axis 1 -> 192 floats; reshape C6 -> C6 -> 96 floats; transpose 96 floats;
    # space_to_depth [1,2,2,2] -> [1,1,1,8] 8 floats. The C8 -> C8 reshape (Reshapex4) and the
    # channel-axis concat are cheap and absent.
    assert found[0] == ("CONCATENATION", 768, "gpu")
    assert sorted(found[1:3]) == [("RESHAPE", 384, "gpu"), ("TRANSPOSE", 384, "gpu")]
    assert found[3] == ("SPACE_TO_DEPTH", 32, "gpu")
    assert all(h.fix is None for h in a.hotspots)


def test_no_hotspots_in_a_plain_conv(models):
    _, a = analyses_of(models.path("conv_relu"))
    assert a.hotspots == []
