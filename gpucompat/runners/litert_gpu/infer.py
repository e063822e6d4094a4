"""Inference on LiteRT's real GPU accelerator: one child process (infer_child.py) compiles the
model once, in fp32 or at the accelerator's default precision (fp16), and runs every input set,
with a time limit; the Vulkan driver is found as `gpucompat confirm` finds it (confirm/runner.py,
launcher), and the runtime's log lines are read by confirm/logs.py.

The first inference compiles shaders (10-40 s on the software driver), so verify keeps the number
of runs on this runner low by default.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field

import numpy as np

from gpucompat.confirm import logs
from gpucompat.confirm.runner import NO_DEVICE_HELP, Launcher, NoDevice, launcher
from gpucompat.errors import GpucompatError
from gpucompat.runners.litert_gpu import infer_child

TIMEOUT_S = 600.0


@dataclass
class AcceleratorRun:
    """Every run's outputs, whether the accelerator took every op (else LiteRT's CPU ran the rest),
    and the device errors it logged (confirm/logs.py LogFacts.device_errors: a shader that does not
    compile leaves the outputs of its whole partition unwritten)."""

    outputs: list[list[np.ndarray]]
    fully_accelerated: bool
    device_errors: list[str] = field(default_factory=list)


def run_on_accelerator(path: str, runs: list[list[np.ndarray]], input_indices: list[int],
                       output_indices: list[int], timeout_s: float = TIMEOUT_S, precision: str = "fp32",
                       partly: bool = False, launch: Launcher | None = None) -> AcceleratorRun:
    """The outputs (in `output_indices` order) of every run of `path` on the accelerator, at
    `precision` (fp32, or fp16: the accelerator's default); a one-line GpucompatError when there
    is no Vulkan device, the child fails or runs past `timeout_s`, or the model is not fully
    accelerated and `partly` does not allow the rest on LiteRT's CPU. `launch`: the child's Python and
    environment (default: runner.launcher())."""
    launch = launch or launcher()
    with tempfile.TemporaryDirectory(prefix="gpucompat-litert-") as tmp:
        inputs, outputs = os.path.join(tmp, "inputs.npz"), os.path.join(tmp, "outputs.npz")
        np.savez(inputs, **{f"run{r}_t{t}": v for r, feeds in enumerate(runs) for t, v in zip(input_indices, feeds)})
        try:
            argv = [launch.python, infer_child.__file__, os.path.abspath(path), inputs, outputs, precision]
            proc = subprocess.run(argv,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=launch.env, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise GpucompatError(f"{path}: LiteRT's GPU accelerator gave no result within {timeout_s:.0f} s") from None
        lines = proc.stderr.decode("utf-8", "replace").splitlines()
        facts = logs.parse(lines)
        if facts.no_device and not facts.gpu_ops:
            raise NoDevice(NO_DEVICE_HELP.format(why=f" ({facts.no_device})"))
        if proc.returncode != 0 or not os.path.exists(outputs):
            last = next((line.strip() for line in reversed(lines) if line.strip()), "")
            raise GpucompatError(f"{path}: the LiteRT child process ended with status {proc.returncode}"
                                 + (f": {last}" if last else ""))
        with np.load(outputs) as got:
            status = json.loads(str(got["status"]))
            if status["error"]:
                why = f" ({facts.kernel_failure})" if facts.kernel_failure else ""
                raise GpucompatError(f"{path}: LiteRT's GPU accelerator cannot run it: {status['error']}{why}")
            if not status["fully_accelerated"] and not partly:
                raise GpucompatError(f"{path}: LiteRT's GPU accelerator does not take every op{_refused(facts)} (see "
                                     "`gpucompat confirm`)")
            return AcceleratorRun([[got[f"run{r}_t{t}"] for t in output_indices] for r in range(len(runs))],
                                  status["fully_accelerated"], facts.device_errors)


def _refused(facts: logs.LogFacts) -> str:
    """The op types the log says the accelerator refused, with the runtime's reasons: ": GATHER
    (Input / output dtype mismatch.)"; empty when it names none."""
    named = [f"{op} ({'; '.join(r for r in reasons if r)})" if any(reasons) else op
             for op, reasons in facts.rejected.items()]
    return f": {', '.join(named)}" if named else ""
