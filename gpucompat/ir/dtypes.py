"""TFLite tensor types: enum value <-> name <-> numpy dtype and byte size."""

import numpy as np
from ai_edge_litert import schema_py_generated as fb

NAMES: dict[int, str] = {
    v: k for k, v in vars(fb.TensorType).items() if not k.startswith("_") and isinstance(v, int)
}

_NUMPY: dict[str, type] = {
    "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64,
    "INT32": np.int32, "UINT8": np.uint8, "INT64": np.int64, "BOOL": np.bool_,
    "INT16": np.int16, "INT8": np.int8, "UINT32": np.uint32, "UINT16": np.uint16,
    "UINT64": np.uint64, "COMPLEX64": np.complex64, "COMPLEX128": np.complex128,
}

FLOAT32 = fb.TensorType.FLOAT32
FLOAT16 = fb.TensorType.FLOAT16
INT32 = fb.TensorType.INT32
INT8 = fb.TensorType.INT8
UINT8 = fb.TensorType.UINT8
INT16 = fb.TensorType.INT16
INT64 = fb.TensorType.INT64
BOOL = fb.TensorType.BOOL
INT4 = fb.TensorType.INT4


def name(dtype: int) -> str:
    """The schema's name for a tensor type ("FLOAT32"), or "TYPE_<n>" for an unknown value."""
    return NAMES.get(dtype) or f"TYPE_{dtype}"  # not .get's default: it would be formatted each time


def numpy_dtype(dtype: int) -> np.dtype | None:
    """The numpy dtype that stores a tensor type, or None when numpy has none (STRING, INT4, ...)."""
    t = _NUMPY.get(NAMES.get(dtype, ""))
    return np.dtype(t) if t is not None else None


def itemsize(dtype: int) -> int:
    """Bytes per element (INT4 and unknown types count as 1, STRING as 1 per byte)."""
    t = numpy_dtype(dtype)
    return t.itemsize if t is not None else 1


def from_numpy(dtype: np.dtype) -> int:
    """The tensor type that matches a numpy dtype."""
    for key, t in _NUMPY.items():
        if np.dtype(t) == np.dtype(dtype):
            return getattr(fb.TensorType, key)
    raise ValueError(f"no TFLite tensor type for numpy dtype {dtype}")
