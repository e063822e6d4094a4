"""Task-level numerics of one output over verify's runs: what a user judges a model by, beside
max|error|. A classifier by its top classes, an embedding by its cosine, anything by whether it
came out all zero or not finite.

- **Classifier-like** (`classifier_like`): a float or quantized output of rank 1 or 2 whose last
  axis (the class axis) has at least 2 entries, written by SOFTMAX or LOG_SOFTMAX, or by
  FULLY_CONNECTED (logits) with at least LOGIT_CLASSES entries, directly or through RESHAPE /
  SQUEEZE / QUANTIZE / DEQUANTIZE. Rank 2 is [batch, classes]: each row is judged on its own. A
  landmark regression is not one, and a flip among its coordinates means nothing: MediaPipe's
  pose landmarks [1, 195] come from a convolution, hand_landmark's [1, 63] (21 points x 3) from a
  FULLY_CONNECTED below LOGIT_CLASSES. A logits head with fewer classes and no softmax is missed.
- **Top-1 agreement**: the share of rows whose top test class is a top reference class (a class
  tied with the reference's largest value counts as agreeing); a row that disagrees is a class
  flip. **Top-5 agreement**: the share of rows whose five largest classes (all of them with fewer
  than 5) are the same set on both sides.
- **Cosine similarity**: the smallest over the runs of cos(test, ref) of the flattened output
  (1 when both are all zero; 0 when one side only is).
- **All-zero runs**: runs whose test output is all 0 where the reference's is not.
- **NaN / Inf**: how many elements were NaN or infinite over the runs, on each side.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpucompat import ir

CLASS_WRITERS = {"SOFTMAX", "LOG_SOFTMAX"}
LOGIT_CLASSES = 100  # a FULLY_CONNECTED output this wide is taken for logits
SHAPE_ONLY = {"RESHAPE", "SQUEEZE", "QUANTIZE", "DEQUANTIZE"}
TOP_K = 5
FLIP_EXAMPLES = 3  # class flips kept for the report


def classifier_like(t: ir.Tensor) -> bool:
    """Whether an output is judged by its top classes (the module's definition)."""
    if len(t.shape) not in (1, 2) or t.shape[-1] < 2 or t.dtype_name not in ("FLOAT32", "FLOAT16", "INT8", "UINT8"):
        return False
    op = t.producer
    while op is not None and op.name in SHAPE_ONLY and op.present_inputs:
        op = op.present_inputs[0].producer
    if op is None:
        return False
    return op.name in CLASS_WRITERS or (op.name == "FULLY_CONNECTED" and t.shape[-1] >= LOGIT_CLASSES)


@dataclass
class TaskStats:
    """Task-level numerics of one output, accumulated over the runs."""

    classifier: bool
    runs: int = 0
    rows: int = 0
    top1_same: int = 0
    top5_same: int = 0
    flips: list[dict] = field(default_factory=list)
    flip_count: int = 0
    cosine_min: float | None = None
    all_zero_runs: int = 0
    nan: int = 0
    inf: int = 0
    reference_nan: int = 0
    reference_inf: int = 0

    def add(self, test: np.ndarray, ref: np.ndarray) -> None:
        """Fold in the next run's output (float values, same shape on both sides)."""
        run, self.runs = self.runs, self.runs + 1
        t, r = np.asarray(test, np.float64), np.asarray(ref, np.float64)
        self.nan, self.inf = self.nan + int(np.isnan(t).sum()), self.inf + int(np.isinf(t).sum())
        self.reference_nan += int(np.isnan(r).sum())
        self.reference_inf += int(np.isinf(r).sum())
        if t.size and not t.any() and r.any():
            self.all_zero_runs += 1
        cos = cosine(t, r)
        self.cosine_min = cos if self.cosine_min is None else min(self.cosine_min, cos)
        if self.classifier:
            for row, (a, b) in enumerate(zip(t.reshape(-1, t.shape[-1]), r.reshape(-1, r.shape[-1]))):
                self._add_row(run, row, a, b)

    def _add_row(self, run: int, row: int, test: np.ndarray, ref: np.ndarray) -> None:
        self.rows += 1
        got = int(np.argmax(np.nan_to_num(test, nan=-np.inf)))
        if ref[got] >= np.nanmax(ref):
            self.top1_same += 1
        else:
            self.flip_count += 1
            if len(self.flips) < FLIP_EXAMPLES:
                self.flips.append({"run": run, "row": row, "reference_class": int(np.nanargmax(ref)),
                                   "test_class": got})
        k = min(TOP_K, ref.size)
        if set(top(test, k)) == set(top(ref, k)):
            self.top5_same += 1

    def record(self) -> dict:
        """The output's "task" entry in verify's JSON document."""
        share = (lambda n: n / self.rows) if self.rows else (lambda n: None)
        return {"classifier": self.classifier, "rows": self.rows, "top1_agreement": share(self.top1_same),
                "top5_agreement": share(self.top5_same), "class_flips": self.flip_count, "flips": self.flips,
                "cosine_min": self.cosine_min, "all_zero_runs": self.all_zero_runs,
                "nan": self.nan, "inf": self.inf, "reference_nan": self.reference_nan,
                "reference_inf": self.reference_inf}


def top(values: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k largest values (NaN ranks lowest)."""
    return np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")[:k]


def cosine(test: np.ndarray, ref: np.ndarray) -> float:
    """cos(test, ref) of the flattened arrays over their finite elements: 1 when both are all
    zero, 0 when one side only is."""
    a, b = test.ravel(), ref.ravel()
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return 1.0 if na == nb else 0.0
    return float(np.clip(np.dot(a, b) / (na * nb), -1.0, 1.0))
