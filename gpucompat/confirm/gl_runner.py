"""Start and watch the child process that applies the classic TFLite GPU delegate (OpenGL ES) to models.

The delegate is the one the mediapipe wheel compiles (`TfLiteGpuDelegateCreate`), reached through a
plugin shim; a set-up directory holds the shim (libgl_shim.so) and the delegate's entry points
(gl_delegate.json). It runs on any OpenGL ES 3.1 driver EGL finds; on a machine without a GPU,
Mesa's llvmpipe with EGL_PLATFORM=surfaceless (docs/fidelity.md, "The classic delegate").

Many models go through one child; a model that ends the process or runs past its time limit gets
that as its result, and the models after it go to a fresh child.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np

from gpucompat.confirm import gl_child
from gpucompat.confirm.runner import marked_chunks, run_watched
from gpucompat.errors import GpucompatError

SETUP_DIR_VARIABLE = "GPUCOMPAT_GL_DIR"
DEFAULT_SETUP_DIR = os.path.join("~", ".cache", "gpucompat-gl")
UNRESOLVED = "Encountered unresolved custom op"  # the loader's words: no kernel for a custom op here
DELEGATE_NODE = "(TfLiteGpuDelegate) failed"  # the runtime's words when the delegate's own node fails
MODELS_PER_CHILD = 40  # the shim keeps its records in a fixed buffer of a few kilobytes
# A process the delegate ends is tried again alone: running a model, the delegate at times corrupts
# the process's heap ("realloc(): invalid next size", two runs in three of a small CONV_2D -> MEAN ->
# FULLY_CONNECTED model, never at delegation alone), so one crash is not the model's answer; three are.
CRASH_RETRIES = 2
NO_GL_HELP = ("the classic GL delegate cannot run here: {why}. It needs a set-up directory ($" + SETUP_DIR_VARIABLE
              + ", default " + DEFAULT_SETUP_DIR + ") with the delegate's plugin shim (libgl_shim.so and "
              "gl_delegate.json) and an OpenGL ES 3.1 driver that EGL finds (no GPU: Mesa's llvmpipe, Debian "
              "libegl-mesa0 and libgles2); docs/fidelity.md says how")
# What the delegate says when EGL or GL ES cannot be had at all (no display, no driver).
_NO_DRIVER = ("EGL", "eglGetDisplay", "eglInitialize", "OpenGL ES 3.1")


class NoGl(GpucompatError):
    """The classic GL delegate cannot run on this machine: no set-up or no EGL / GL ES driver."""


@dataclass
class GlLauncher:
    """How to start the child: which Python, with which environment, the shim and its options."""

    python: str
    env: dict[str, str]
    shim: str
    options: dict[str, str]
    driver: str


def gl_launcher(setup_dir: str | None = None) -> GlLauncher:
    """The child's Python (GPUCOMPAT_GL_PYTHON, else this one: ai-edge-litert is a dependency), its
    environment (EGL_PLATFORM=surfaceless unless set: no display needed) and the set-up of
    `setup_dir` (default $GPUCOMPAT_GL_DIR or ~/.cache/gpucompat-gl); NoGl naming what is missing."""
    directory = os.path.expanduser(setup_dir or os.environ.get(SETUP_DIR_VARIABLE) or DEFAULT_SETUP_DIR)
    shim, entry_points = os.path.join(directory, "libgl_shim.so"), os.path.join(directory, "gl_delegate.json")
    for path in (shim, entry_points):
        if not os.path.isfile(path):
            raise NoGl(NO_GL_HELP.format(why=f"{path}: no such file"))
    with open(entry_points) as f:
        options = {k: str(v) for k, v in json.load(f).items()}
    if not os.path.isfile(options.get("lib", "")):
        raise NoGl(NO_GL_HELP.format(why=f"{options.get('lib')!r} (named in {entry_points}): no such file"))
    env = {**os.environ, "EGL_PLATFORM": os.environ.get("EGL_PLATFORM", "surfaceless")}
    return GlLauncher(os.environ.get("GPUCOMPAT_GL_PYTHON") or sys.executable, env, shim, options,
                      f"the classic GL delegate set up in {directory}")


@dataclass
class GlJob:
    """One model for the child: at `precision` ("fp32", or "fp16": precision loss allowed), and
    when `feeds` is given, run on each input set (values of subgraph 0's inputs `input_indices`)."""

    path: str
    precision: str = "fp32"
    feeds: list[list[np.ndarray]] | None = None
    input_indices: list[int] = field(default_factory=list)


@dataclass
class GlReport:
    """One model's delegation: the nodes each delegation call replaced (one call per subgraph the
    runtime offers the delegate), whether the delegation failed and the delegate's words, how the
    child ended on it, and the outputs of each run (by output tensor index) when it ran."""

    path: str
    replaced: list[int] = field(default_factory=list)
    failed: bool = False
    prepare_failed: bool = False  # the delegate failed (its Prepare or its node's), not the CPU kernels
    error: str | None = None
    crashed: bool = False
    timed_out: bool = False
    outputs: list[dict[int, np.ndarray]] | None = None
    log: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        """The delegate's own words for a failure, without the runtime's framing: "Batch size
        mismatch, expected 7 but got 1" out of "... TfLiteGpuDelegate Prepare: Batch size mismatch,
        expected 7 but got 1Node number 3 (TfLiteGpuDelegate) failed to prepare. ..."."""
        if not self.error:
            return self.error
        text = self.error.rsplit("TfLiteGpuDelegate Prepare: ", 1)[-1]
        return text.split("Node number ", 1)[0].strip() or self.error

    @property
    def gpu_nodes(self) -> int:
        """Nodes the delegate runs: none when the delegation failed."""
        return 0 if self.failed or self.crashed or self.timed_out else sum(self.replaced)


def _delegate_failed(result: dict) -> bool:
    """Whether the delegate itself failed: its Prepare returned an error, its node failed to
    prepare (the build), or an exception left its Prepare before it finished (a C++ "bad any_cast"
    through Python: no call recorded, some words, neither the loader's unresolved custom op nor a CPU
    kernel's "Node number N (OP) failed to prepare")."""
    error = result["error"] or ""
    return (any(c["status"] for c in result["calls"]) or DELEGATE_NODE in error
            or (result["failed"] and not result["calls"] and bool(error) and UNRESOLVED not in error
                and "Node number" not in error))


def delegate_models(jobs: list[GlJob], launch: GlLauncher, per_model_timeout: float = 120.0) -> list[GlReport]:
    """Apply the GL delegate to every job's model, in as few child processes as crashes allow;
    NoGl when the first model shows there is no EGL / GL ES driver."""
    reports: list[GlReport] = []
    with tempfile.TemporaryDirectory(prefix="gpucompat-gl-") as tmp:
        while len(reports) < len(jobs):
            start = len(reports)
            batch = _batch(jobs[start:start + MODELS_PER_CHILD], start, launch, per_model_timeout, tmp)
            for _ in range(CRASH_RETRIES):
                if not batch[-1].crashed:
                    break
                batch[-1:] = _batch([jobs[start + len(batch) - 1]], start + len(batch) - 1, launch, per_model_timeout,
                                    tmp)
            reports.extend(batch)
    return reports


def _batch(jobs: list[GlJob], start: int, launch: GlLauncher, per_model_timeout: float, tmp: str) -> list[GlReport]:
    """Run one child over `jobs`; the reports of the models it finished, plus the one it ended on."""
    models = []
    for i, job in enumerate(jobs):
        entry = {"path": os.path.abspath(job.path), "precision": job.precision, "inputs": None, "outputs": None}
        if job.feeds is not None:
            entry["inputs"], entry["outputs"] = (os.path.join(tmp, f"{start + i}-{kind}.npz") for kind in ("in", "out"))
            np.savez(entry["inputs"], **{f"run{r}_t{t}": v for r, feeds in enumerate(job.feeds)
                                         for t, v in zip(job.input_indices, feeds)})
        models.append(entry)
    job_file = os.path.join(tmp, f"job{start}.json")
    with open(job_file, "w") as f:
        json.dump({"shim": launch.shim, "options": launch.options, "models": models}, f)
    proc, lines, timed_out = run_watched([launch.python, gl_child.__file__, job_file], launch.env, per_model_timeout)
    _, chunks = marked_chunks(lines)
    if not chunks:
        tail = next((line.strip() for line in reversed(lines) if line.strip()), "")
        raise GpucompatError(f"the GL delegate's child process ended before delegating anything (exit status "
                             f"{proc.returncode}){': ' + tail if tail else ''}")
    reports = []
    for i, log, result in chunks:
        job, entry = jobs[i], models[i]
        if result is None:
            reports.append(GlReport(job.path, crashed=not timed_out, timed_out=timed_out, log=log,
                                    error=f"no result after {per_model_timeout:.0f} s" if timed_out else
                                    f"the process ended while delegating (exit status {proc.returncode})"))
            break
        report = GlReport(job.path, [c["replaced"] for c in result["calls"]], result["failed"],
                          _delegate_failed(result), result["error"], log=log)
        if report.failed and i + start == 0 and any(word in (report.error or "") for word in _NO_DRIVER):
            raise NoGl(NO_GL_HELP.format(why=report.error))
        if entry["outputs"] and os.path.exists(entry["outputs"]):
            with np.load(entry["outputs"]) as got:
                runs = sorted({int(k.split("_")[0][3:]) for k in got.files})
                report.outputs = [{int(k.split("_t")[1]): got[k] for k in got.files if k.startswith(f"run{r}_")}
                                  for r in runs]
        reports.append(report)
    return reports


class GlBuildFailure(GpucompatError):
    """The GL delegate took the model's ops and then failed to build them (its own words)."""


def run_whole(path: str, runs: list[list[np.ndarray]], input_indices: list[int], output_indices: list[int],
              nodes: int, precision: str, launch: GlLauncher) -> list[list[np.ndarray]]:
    """The outputs (in `output_indices` order) of every run of `path` with all its `nodes` on the GL
    delegate at `precision`: GlBuildFailure when the delegation fails, a GpucompatError when the
    delegate leaves any node on the CPU or the run fails."""
    report = delegate_models([GlJob(path, precision, runs, input_indices)], launch)[0]
    if report.prepare_failed or report.crashed or report.timed_out:
        raise GlBuildFailure(report.reason or "the GL delegate failed")
    if report.failed:
        raise GpucompatError(f"the interpreter cannot run it: {report.reason}")
    if report.gpu_nodes != nodes or report.outputs is None:
        raise GpucompatError(report.error if report.outputs is None and report.error else
                             f"the GL delegate took {report.gpu_nodes} of {nodes} nodes")  # record_grid.py UNTAKEN
    return [[run[t] for t in output_indices] for run in report.outputs]
