"""The reference interpreter (ai-edge-litert's CPU interpreter): the one way the verification
package loads a model on it and runs it, for `verify`, `fix`'s proof, hybrid execution's CPU
partitions, constant folding, `check --inputs`'s value-range pass and the tests."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from gpucompat import ir
from gpucompat.errors import GpucompatError
from gpucompat.opencl.device import native_stderr_silenced


def reference_interpreter(model_bytes: bytes, what: str, preserve: bool = False, xnnpack: bool = True,
                          input_shapes: Sequence[Sequence[int]] | None = None):
    """The reference interpreter on a model, allocated; a one-line error saying why when it cannot
    load it (an unregistered custom op, for instance). `xnnpack=False` uses the builtin kernels
    only (XNNPACK refuses graphs without runtime inputs, and does not keep intermediates);
    `preserve` keeps every intermediate tensor readable after a run. `input_shapes` (per input,
    the shapes it will be fed at) resizes the inputs before the first allocation: a model whose
    stored input shape is a placeholder ([1, 1] for a [-1, -1] signature) may not even prepare
    at it (a VALID convolution wider than 1), while it runs at the shapes its signature allows.
    A graph XNNPACK refuses to prepare runs on the builtin kernels, as the CPU runs every subgraph
    but the first (an INT4 block scale of 0 in a decode signature made the main subgraph)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.AUTO if xnnpack else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    try:
        with native_stderr_silenced():
            it = Interpreter(model_content=model_bytes, experimental_preserve_all_tensors=preserve,
                             experimental_op_resolver_type=resolver)
            if input_shapes is not None:
                _resize_inputs(it, input_shapes)
            it.allocate_tensors()
    except (ValueError, RuntimeError) as e:
        if xnnpack and "XNNPACK" in str(e):  # XNNPACK refuses the graph: the builtin kernels run it
            return reference_interpreter(model_bytes, what, preserve, False, input_shapes)
        raise GpucompatError(f"the reference interpreter cannot run {what}: {one_line(e)}") from None
    try:
        it.get_input_details(), it.get_output_details()
    except UnicodeDecodeError:
        return reference_interpreter(_with_readable_names(model_bytes), what, preserve, xnnpack, input_shapes)
    return it


def _with_readable_names(model_bytes: bytes) -> bytes:
    """The model with every tensor name decoded (bytes that are not UTF-8 become U+FFFD): the
    interpreter's Python API decodes names strictly and fails on them, while its kernels never
    read a name, so the run is the same."""
    model = ir.from_bytes(model_bytes)
    for graph in model.graphs:
        for t in graph.tensors:
            t.fb.name = t.name
    return ir.to_bytes(model)


def run_reference(it, feeds: list[np.ndarray], what: str = "the model") -> list[np.ndarray]:
    """Invoke an interpreter on inputs in input order; outputs in output order. A model the
    runtime refuses only when it runs (an input tensor without data, for instance) is one line
    naming `what`.
    An input whose shape differs from the one allocated (a dynamic batch, a loop variable that
    WHILE grows or empties, a WHERE with no hits) is resized first, as the WHILE kernel resizes
    the subgraphs it calls (kernels/while.cc CopyTensorsShapeAndType)."""
    try:
        with native_stderr_silenced():
            _resize_to(it, feeds)
            for d, v in zip(it.get_input_details(), feeds):
                it.set_tensor(d["index"], np.asarray(v, d["dtype"]).reshape(d["shape"]))
            it.invoke()
    except (ValueError, RuntimeError) as e:
        raise GpucompatError(f"the reference interpreter cannot run {what}: {one_line(e)}") from None
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def one_line(error: Exception) -> str:
    """The runtime's error text on one line, its messages apart: TFLite's error reporter joins
    them with nothing between ("Invalid begin.Node number 2 (SLICE) failed to invoke.", "gather_nd
    index out of boundsNode number 16 (GATHER_ND) failed to invoke.")."""
    text = re.sub(r"\.(?=[A-Z])", ". ", " ".join(str(error).split()))
    return re.sub(r"(?<=[a-z0-9)])(?=Node number \d)", ". ", text)


def _resize_to(it, feeds: list[np.ndarray]) -> None:
    """Resize the inputs whose shape differs from the allocated one, then reallocate."""
    if _resize_inputs(it, [np.shape(v) for v in feeds]):
        it.allocate_tensors()


def _resize_inputs(it, shapes: Sequence[Sequence[int]]) -> bool:
    """Resize the inputs whose shape differs from `shapes` (a rank-0 feed for a [1] input keeps
    its shape); True when one was resized (the interpreter must then be allocated again)."""
    resized = False
    for d, shape in zip(it.get_input_details(), shapes):
        shape = tuple(int(n) for n in shape)
        have = tuple(int(n) for n in d["shape"])
        if int(np.prod(shape)) != int(np.prod(have)) or (len(shape) == len(have) and shape != have):
            it.resize_tensor_input(d["index"], list(shape))
            resized = True
    return resized


def output_names(it) -> list[str]:
    """The names of an interpreter's outputs, in output order."""
    return [d["name"] for d in it.get_output_details()]
