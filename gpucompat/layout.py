"""How the GPU delegate lays a tensor out: BHWC with channels in slices of 4.

Shape mapping mirrors tflite/delegates/gpu/common/model_builder_helper.cc ExtractTensorShape:
[n] -> B=n; [b, c]; [b, w, c] (H = 1); [b, h, w, c]. Storage mirrors common/task/tensor_desc.cc
GetSizeInBytesForShape: B*H*W*D*align4(C) elements for every storage type but SINGLE_TEXTURE_2D."""

from __future__ import annotations

from gpucompat.ir import Tensor

SLICE = 4


def align4(c: int) -> int:
    """Channels rounded up to whole slices of 4 (DivideRoundUp(C, 4) * 4)."""
    return -(-c // SLICE) * SLICE


def bhwc(shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """The delegate's (B, H, W, C) for a tensor shape; None for rank 0 or above 4."""
    dims = [max(d, 0) for d in shape]
    if len(dims) == 1:
        return dims[0], 1, 1, 1
    if len(dims) == 2:
        return dims[0], 1, 1, dims[1]
    if len(dims) == 3:
        return dims[0], 1, dims[1], dims[2]
    if len(dims) == 4:
        return dims[0], dims[1], dims[2], dims[3]
    return None


def channels(t: Tensor) -> int | None:
    """The C the delegate sees for `t` (None when it cannot map the shape)."""
    m = bhwc(t.shape)
    return m[3] if m else None


def padded_elements(t: Tensor) -> tuple[int, int] | None:
    """(useful, stored) element counts of `t` in slices of 4; None when unmappable."""
    return padded_counts(t.shape)


def padded_counts(shape: tuple[int, ...]) -> tuple[int, int] | None:
    """(useful, stored) element counts of a tensor of `shape` in slices of 4; None when unmappable."""
    m = bhwc(shape)
    if m is None:
        return None
    b, h, w, c = m
    return b * h * w * c, b * h * w * align4(c)
