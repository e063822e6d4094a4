"""Start and watch the child process that compiles models with LiteRT's GPU accelerator.

Many models go through one child (the runtime starts in about half a second, a compilation takes
a few tens of milliseconds); a model that aborts the process (an absl CHECK in the GPU model
builder) or runs past its time limit ends that child, gets that as its result, and the models
after it go to a fresh child. Nothing here waits without a limit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from gpucompat.confirm import child, logs
from gpucompat.errors import GpucompatError

# The software-driver set-up documented in docs/fidelity.md writes its environment here.
SETUP_DIR_VARIABLE = "GPUCOMPAT_VULKAN_DIR"
DEFAULT_SETUP_DIR = os.path.join("~", ".cache", "gpucompat-oracle")
NO_DEVICE_HELP = ("no Vulkan device that LiteRT's GPU accelerator can use{why}: install your GPU's Vulkan "
                  "driver, or Mesa >= 23 lavapipe (a software driver; Debian: mesa-vulkan-drivers from "
                  "bookworm-backports) and set VK_ICD_FILENAMES to its lvp_icd json, or write those "
                  "variables as 'export K=V' lines into $" + SETUP_DIR_VARIABLE + "/env.sh "
                  "(default " + DEFAULT_SETUP_DIR + ")")


class NoDevice(GpucompatError):
    """No Vulkan device the accelerator can use: the user must install a driver."""


@dataclass
class RuntimeReport:
    """One model's compilation on the real accelerator."""

    path: str
    compiled: bool
    error: str | None = None  # the exception text, or how the process ended
    fully_accelerated: bool | None = None  # CompiledModel.is_fully_accelerated() (GPU or XNNPACK)
    litert: str | None = None  # the ai-edge-litert version that compiled it
    crashed: bool = False  # the process died while compiling this model
    timed_out: bool = False
    facts: logs.LogFacts = field(default_factory=logs.LogFacts)
    log: list[str] = field(default_factory=list)


@dataclass
class Launcher:
    """How to start the child: which Python, with which environment, described for the user."""

    python: str
    env: dict[str, str]
    driver: str


def launcher(setup_dir: str | None = None) -> Launcher:
    """The child's Python (GPUCOMPAT_LITERT_PYTHON, else this one: ai-edge-litert is a
    dependency) and environment: this process's, plus the exports of `setup_dir`/env.sh when
    that file exists (`setup_dir` defaults to $GPUCOMPAT_VULKAN_DIR or ~/.cache/gpucompat-oracle)."""
    env = dict(os.environ)
    directory = os.path.expanduser(setup_dir or os.environ.get(SETUP_DIR_VARIABLE) or DEFAULT_SETUP_DIR)
    script = os.path.join(directory, "env.sh")
    driver = "the system's Vulkan driver"
    if os.path.isfile(script):
        env.update(_exports(script))
        driver = f"the Vulkan driver set up in {directory}"
    elif setup_dir:
        raise GpucompatError(f"{script}: no such file (expected 'export K=V' lines naming a Vulkan driver)")
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"  # the adapter line is absl INFO
    return Launcher(os.environ.get("GPUCOMPAT_LITERT_PYTHON") or sys.executable, env, driver)


def _exports(path: str) -> dict[str, str]:
    """The K=V pairs of a file of `export K=V ...` lines."""
    found = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if words and words[0] == "export":
                for kv in words[1:]:
                    k, sep, v = kv.partition("=")
                    if sep:
                        found[k] = v.strip("'\"")
    return found


def compile_models(paths: list[str], launch: Launcher, per_model_timeout: float = 120.0) -> list[RuntimeReport]:
    """Compile every model in `paths` on the accelerator, in as few child processes as crashes allow.

    The runtime prints the dynamic-tensor gate line only once per process, so a model that fails
    to compile after another model in the same child is compiled again in a child of its own."""
    reports: list[RuntimeReport] = []
    while len(reports) < len(paths):
        batch = _batch(paths[len(reports):], launch, per_model_timeout)
        for i, r in enumerate(batch):
            if i > 0 and not r.compiled and not r.crashed and not r.timed_out:
                batch[i] = _batch([r.path], launch, per_model_timeout)[0]
        reports.extend(batch)
    return reports


def _batch(paths: list[str], launch: Launcher, per_model_timeout: float) -> list[RuntimeReport]:
    """Run one child over `paths`; the reports of the models it finished, plus the one it died on."""
    proc, lines, timed_out = run_watched([launch.python, child.__file__, *paths], launch.env, per_model_timeout)
    verbose, chunks = marked_chunks(lines)
    _raise_on_setup_problem(verbose, chunks[0][1] if chunks else None)
    if not chunks:
        raise GpucompatError(f"the LiteRT child process ended before compiling anything (exit status "
                             f"{proc.returncode}){_last_words(lines)}")
    if [i for i, _, _ in chunks] != list(range(len(chunks))):
        raise GpucompatError(f"the LiteRT child process reported models out of order: {[i for i, _, _ in chunks]}")
    reports = [_report(paths[i], log, result, verbose.get("litert")) for i, log, result in chunks]
    adapter = next((r.facts.adapter for r in reports if r.facts.adapter), None)  # logged once per process
    for r in reports:
        r.facts.adapter = adapter
    if chunks[-1][2] is None:
        last = reports[-1]
        last.timed_out, last.crashed = timed_out, not timed_out
        last.error = (f"no result after {per_model_timeout:.0f} s" if timed_out else
                      f"the process ended while compiling (exit status {proc.returncode})"
                      + (f": Check failed: {last.facts.check_failure}" if last.facts.check_failure else ""))
    return reports


def run_watched(argv: list[str], env: dict | None,
                per_model_timeout: float) -> tuple[subprocess.Popen, list[str], bool]:
    """Run a child, watching its stderr for model markers (_watch); (the finished process, every
    stderr line, whether it was killed). The child writes through a file description of its own:
    one shared with the reader would share its offset, and reading while the child writes would put
    the child's lines over earlier ones (a model's marker lost now and then)."""
    with tempfile.NamedTemporaryFile() as out, open(out.name, "ab") as sink:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink, env=env)
        timed_out = _watch(proc, out, per_model_timeout)
        out.seek(0)
        return proc, out.read().decode("utf-8", "replace").splitlines(), timed_out


def _watch(proc: subprocess.Popen, out, per_model_timeout: float) -> bool:
    """Wait for the child; kill it when one model (or the start-up) takes longer than the limit.
    True when it was killed."""
    marker = f"{child.MARK} model ".encode()
    started, pos, partial = time.monotonic(), 0, b""
    while True:
        try:
            proc.wait(timeout=0.2)
            return False
        except subprocess.TimeoutExpired:
            pass
        out.seek(pos)
        new = out.read()
        pos += len(new)
        *complete, partial = (partial + new).split(b"\n")
        if any(line.startswith(marker) for line in complete):
            started = time.monotonic()
        if time.monotonic() - started > per_model_timeout:
            proc.kill()
            proc.wait()
            return True


_MARKER = re.compile(re.escape(child.MARK) + r" (verbose|model|result) (.*)$")


def marked_chunks(lines: list[str]) -> tuple[dict, list[tuple[int, list[str], dict | None]]]:
    """The start-up marker's payload, and for each model begun: its index, its log lines and its
    result (None when it has none). A marker may follow text the runtime left without a newline."""
    verbose: dict = {}
    chunks: list[tuple[int, list[str], dict | None]] = []
    for line in lines:
        m = _MARKER.search(line)
        text = line[:m.start()] if m else line
        if text.strip() and chunks:
            chunks[-1][1].append(text)
        if not m:
            continue
        kind, payload = m.group(1), json.loads(m.group(2))
        if kind == "verbose":
            verbose = payload
        elif kind == "model":
            chunks.append((payload, [], None))
        elif chunks:
            chunks[-1] = (chunks[-1][0], chunks[-1][1], payload)
    return verbose, chunks


def _raise_on_setup_problem(verbose: dict, first_log: list[str] | None) -> None:
    """One-line errors for a child that cannot do the job at all."""
    if "error" in verbose:
        raise GpucompatError(f"cannot start LiteRT's compiled-model API: {verbose['error']}")
    if verbose and not verbose["ok"]:
        raise GpucompatError("this ai-edge-litert build does not let gpucompat lower its log level, so its "
                             "delegation lines cannot be read (ai-edge-litert 2.3.0 on Linux is supported)")
    facts = logs.parse(first_log or [])
    if facts.no_device and not facts.gpu_ops:
        why = next((line.strip() for line in first_log if line.strip().endswith("required.")), "")
        raise NoDevice(NO_DEVICE_HELP.format(why=f" ({why})" if why else ""))


def _report(path: str, log: list[str], result: dict | None, litert: str | None) -> RuntimeReport:
    """One model's report from its lines and result (None: the child never gave one)."""
    if result is None:
        return RuntimeReport(path, False, litert=litert, facts=logs.parse(log), log=log)
    return RuntimeReport(path, result["compiled"], result["error"], result["fully_accelerated"], litert,
                         facts=logs.parse(log), log=log)


def _last_words(lines: list[str]) -> str:
    tail = [line for line in lines if line.strip() and child.MARK not in line][-1:]
    return f": {tail[0].strip()}" if tail else ""
