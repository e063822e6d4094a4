"""The delegate's tensor layout: BHWC shapes stored in slices of 4 channels (PHWC4).

Shapes map to BHWC as the delegate maps them (gpucompat/layout.py, after model_builder_helper.cc
`ExtractTensorShape`). A tensor of C channels takes S = ceil(C / 4) slices; element (b, y, x, c) lives at float index
(((b * S + c // 4) * H + y) * W + x) * 4 + c % 4. The lanes past C are padding: real memory, as
on the device (common/task/tensor_desc.cc `GetSizeInBytesForShape` aligns C to 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpucompat.layout import bhwc as delegate_bhwc


@dataclass(frozen=True)
class BHWC:
    """A tensor's shape in the delegate's four dimensions."""

    b: int
    h: int
    w: int
    c: int

    @property
    def slices(self) -> int:
        """Number of 4-channel slices."""
        return -(-self.c // 4)

    @property
    def vec4s(self) -> int:
        """Number of float4 cells in PHWC4 storage."""
        return self.b * self.slices * self.h * self.w

    @property
    def dims(self) -> tuple[int, int, int, int]:
        return (self.b, self.h, self.w, self.c)


def bhwc(shape: tuple[int, ...]) -> BHWC:
    """The delegate's BHWC view of a tensor shape (gpucompat.layout.bhwc; rank 0 is treated as one
    element)."""
    mapped = delegate_bhwc(tuple(int(d) for d in shape) or (1,))
    if mapped is None:
        raise ValueError(f"rank {len(shape)} tensors have no BHWC layout (the delegate rejects rank >= 5)")
    return BHWC(*mapped)


def to_phwc4(array: np.ndarray, shape: BHWC) -> np.ndarray:
    """BHWC data (any rank that maps to `shape`) -> flat PHWC4 storage, padding lanes zero. Where the
    two layouts are the same (whole slices, and one slice or one pixel: a partition input of
    B x 1 x 1 x C, as the executor passes RGB images), the data as it is, not copied."""
    x = np.asarray(array).reshape(shape.dims)
    if shape.c % 4 == 0 and (shape.slices == 1 or shape.h * shape.w == 1):
        return np.ascontiguousarray(x).ravel()
    s = shape.slices
    padded = np.zeros((shape.b, shape.h, shape.w, s * 4), dtype=x.dtype)
    padded[..., : shape.c] = x
    return np.ascontiguousarray(padded.reshape(shape.b, shape.h, shape.w, s, 4).transpose(0, 3, 1, 2, 4)).ravel()


def from_phwc4(flat: np.ndarray, shape: BHWC) -> np.ndarray:
    """Flat PHWC4 storage -> BHWC array of shape (B, H, W, C)."""
    s = shape.slices
    x = np.asarray(flat)[: shape.vec4s * 4].reshape(shape.b, s, shape.h, shape.w, 4).transpose(0, 2, 3, 1, 4)
    return x.reshape(shape.b, shape.h, shape.w, s * 4)[..., : shape.c]


def phwc4_positions(shape: BHWC) -> np.ndarray:
    """For every element of a BHWC tensor (in row-major BHWC order, shaped (B, H, W, C)), its float
    index in PHWC4 storage. Data-movement ops are index maps built from these."""
    b, y, x, c = np.indices(shape.dims, dtype=np.int64)
    return (((b * shape.slices + c // 4) * shape.h + y) * shape.w + x) * 4 + c % 4
