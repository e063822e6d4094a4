"""Run a model in-process on the reference interpreter, as the runner table's reference runs it."""

import numpy as np

from gpucompat import ir
from gpucompat.runners import REFERENCE, Job


def reference_outputs(data: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """The outputs of `data` on one input set, the interpreter allocated at the inputs' shapes."""
    return REFERENCE.open(Job(ir.from_bytes(data), data, {}, [feeds])).run(feeds)
