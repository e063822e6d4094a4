"""Program building (opencl/programs.py, opencl/runtime.py compile): only the kernels a model uses,
every kernel of every family found in its file, and the elementwise function codes
(opencl/functions.py) shared by the kernels and the lowerings, with no silent default."""

import os

import numpy as np
import pytest

import models_kernels  # noqa: F401  (registers builders)
from gpucompat import ir
from gpucompat.debug import DETAIL
from gpucompat.opencl import functions, programs
from gpucompat.opencl.builder import ChildBuild
from gpucompat.opencl.device import CLError, Device, choose, native_stderr_silenced
from gpucompat.opencl.phwc4 import bhwc
from gpucompat.opencl.programs import Variant
from gpucompat.opencl.runtime import Runtime
from gpucompat.verification.hybrid import HybridRunner
from gpucompat.verification.inputs import seeded_feeds

FAMILIES = sorted(p[:-3] for p in os.listdir(os.path.dirname(programs.__file__))
                  if p.endswith(".cl") and p not in ("common.cl", "linked.cl"))


@pytest.fixture(scope="module")
def device():
    return choose()


def test_shared_text_of_a_family_holds_no_kernel():
    """Whatever the splitter does not take as a kernel is shared text: a kernel left there would
    be compiled into every program of its family again."""
    for family in FAMILIES:
        shared, kernels = programs.family(family)
        assert kernels, family
        inside_macros = [line for line in shared.splitlines() if "__kernel" in line and not line.endswith("\\")]
        assert inside_macros == [], family


@pytest.mark.opencl
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_every_kernel_of_every_family_compiles_in_one_program(device, precision):
    variants = [Variant(f, k) for f in FAMILIES for k in programs.kernel_names(f)]
    runtime = Runtime(device, precision)
    runtime.compile(variants)
    for v in variants:
        program, name = runtime.kernels[v]
        assert name in [k.function_name for k in program.all_kernels()]


@pytest.mark.opencl
def test_a_model_compiles_only_the_kernels_it_runs(models, device):
    model = ir.from_bytes(models.bytes("conv_relu"))
    texts = []

    class Step:
        def say(self, text):
            texts.append(text)

    def progress(text):
        import contextlib

        texts.append(text)
        return contextlib.nullcontext(Step())

    runtime = Runtime(device, "fp32", progress=progress)
    HybridRunner(model, ["gpu"] * len(model.graphs[0].ops), runtime)
    families = {label.split(".")[0] for label in runtime.built}
    whole = {f"{f}.{k}" for f in families for k in programs.kernel_names(f)}
    assert "conv.conv2d" in runtime.built and set(runtime.built) < whole  # not every kernel of their families
    assert any("compiling" in t and runtime.built[0].split(".")[1] in t for t in texts)  # said what it compiles


def _unary(runtime: Runtime, code: int, values: np.ndarray) -> np.ndarray:
    shape = bhwc(values.shape)
    src, dst = runtime.upload(values, shape), runtime.empty(shape)
    runtime.prepare("elementwise", "unary_op", (shape.w, shape.h, shape.b * shape.slices), src, shape.dims, dst,
                    shape.dims, code, 0.5, 0)()
    return runtime.download(dst)[0]


@pytest.mark.opencl
def test_every_function_code_has_its_case(device):
    """Each code of the table computes something on ordinary inputs: none falls to the NaN default."""
    values = np.linspace(0.1, 0.9, 8, dtype=np.float32).reshape(1, 2, 1, 4)
    runtime = Runtime(device, "fp32")
    for f in functions.UNARY_FUNCTIONS:
        assert np.isfinite(_unary(runtime, functions.unary(f), values)).all(), f
    out = values.shape
    a, b = runtime.upload(values, bhwc(out)), runtime.upload(values[..., ::-1].copy(), bhwc(out))
    dst = runtime.empty(bhwc(out))
    d = bhwc(out).dims
    for f in functions.BINARY_FUNCTIONS:
        runtime.prepare("elementwise", "binary_op", (1, 2, 1), a, d, b, d, dst, d, functions.binary(f), 0)()
        assert np.isfinite(runtime.download(dst)[0]).all(), f


@pytest.mark.opencl
def test_a_code_added_to_the_table_alone_computes_nan(device, monkeypatch):
    """The table grows by a function linked.cl has no case for: its results are NaN (a failed
    comparison), not the input passed through."""
    monkeypatch.setattr(functions, "UNARY_FUNCTIONS", (*functions.UNARY_FUNCTIONS, "NEW_FUNCTION"))
    values = np.linspace(0.1, 0.9, 4, dtype=np.float32).reshape(1, 1, 1, 4)
    out = _unary(Runtime(device, "fp32"), functions.unary("NEW_FUNCTION"), values)
    assert np.isnan(out).all()


@pytest.mark.opencl
def test_a_case_whose_code_left_the_table_does_not_compile(device, monkeypatch):
    monkeypatch.setattr(functions, "UNARY_FUNCTIONS", functions.UNARY_FUNCTIONS[:-1])
    with pytest.raises(CLError, match="UNARY_ROUND"):
        Runtime(device, "fp32").compile([Variant("elementwise", "unary_op")])


def test_stderr_comes_back_when_parallel_builds_leave_out_of_order():
    """Two builds silence stderr at once and the first to start ends first: stderr is the
    terminal's again once both are done, not /dev/null for the rest of the process."""
    before = os.fstat(2)
    first, second = native_stderr_silenced(), native_stderr_silenced()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert os.fstat(2).st_rdev == os.stat(os.devnull).st_rdev  # the second build still runs silenced
    second.__exit__(None, None, None)
    after = os.fstat(2)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)


def _in_processes(monkeypatch, on: bool = True) -> None:
    """Builds split in two programs, all but one compiled in child processes when `on`."""
    monkeypatch.setattr(Device, "programs_at_once", lambda self, kernels: 2)
    monkeypatch.setattr(Device, "builds_in_processes", property(lambda self: on))


@pytest.mark.opencl
def test_programs_compiled_in_a_child_process_compute_what_programs_compiled_here_do(models, device, monkeypatch,
                                                                                   caplog):
    """On PoCL, whose compiler takes turns within a process, a cold start compiles all programs but
    one in child processes (opencl/builder.py): the binaries they hand back load and compute, bit
    for bit, what the same programs built in this process compute."""
    if not device.builds_in_processes:
        pytest.skip(f"needs PoCL (builds in child processes only there); the device here is {device.name}")
    model = ir.from_bytes(models.bytes("k_fusion"))
    where = ["gpu"] * len(model.graphs[0].ops)
    _in_processes(monkeypatch)
    with caplog.at_level(DETAIL, logger="gpucompat.opencl.runtime"):
        elsewhere = HybridRunner(model, where, Runtime(device, "fp32"))
    assert "compiled in a child process" in caplog.text
    _in_processes(monkeypatch, on=False)
    here = HybridRunner(model, where, Runtime(device, "fp32"))
    feeds = seeded_feeds(model.graphs[0], 5)
    for a, b in zip(elsewhere.run(feeds), here.run(feeds)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.opencl
def test_a_program_a_child_process_cannot_build_fails_here_with_the_compilers_words(device, monkeypatch):
    """The child's failure is only a lost head start: the program is built here, and its error
    names the compiler's complaint as an in-process build does."""
    _in_processes(monkeypatch)
    monkeypatch.setattr(functions, "UNARY_FUNCTIONS", functions.UNARY_FUNCTIONS[:-1])
    with pytest.raises(CLError, match="UNARY_ROUND"):
        Runtime(device, "fp32").compile([Variant("elementwise", "unary_op"), Variant("elementwise", "binary_op")])


def test_a_child_process_that_finds_no_such_device_hands_back_nothing():
    build = ChildBuild("No Such Platform", "no such device", "__kernel void f(__global float* a) { a[0] = 1.0f; }",
                       [])
    assert build.binary() is None
