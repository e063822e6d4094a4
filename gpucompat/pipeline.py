"""Check many models: one task per (model, profile), in worker processes with `jobs` > 1, with a
progress bar on a terminal when the run takes more than a few seconds."""

from __future__ import annotations

import contextlib
import gc
import sys
import time
from dataclasses import dataclass

PROGRESS_AFTER_S = 2.0


@dataclass(frozen=True)
class Task:
    """One model under one profile, with the options and rule selection that apply to it."""

    path: str
    profile: str
    backend: str
    allow_quant: bool
    max_delegated_partitions: int
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    inputs: str | None = None  # representative inputs (gpucompat/sample_inputs.py): the value-range pass runs on them
    normalization: object = None  # image_inputs.Normalization from the flags, for a directory of images
    device_families: tuple[str, ...] = ()  # GPU families whose public reports to raise (DEV6xx)
    module_names: object = None  # attribution.torch_names.ModuleNames of --torch-module-names


@contextlib.contextmanager
def collector_paused():
    """Pause the cyclic garbage collector: a model makes hundreds of thousands of long-lived
    objects and no cyclic garbage, and each full collection walks them all (a fifth of the time
    of a 20,000-op check). Collection resumes, and catches up, afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def check_one(task: Task) -> dict:
    """The JSON record of one task (an error record when the model cannot be checked)."""
    with collector_paused():
        return _check_one(task)


def _check_one(task: Task) -> dict:
    from gpucompat.analyses import analyze
    from gpucompat.attribution.attribute import attribute
    from gpucompat.errors import GpucompatError
    from gpucompat.ir import load
    from gpucompat.output import records
    from gpucompat.placement import check_model
    from gpucompat.rules.lint import run_all, selected
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    prof = registry.get(task.profile)
    options = Options(allow_quant=task.allow_quant, backend=task.backend,
                      max_delegated_partitions=task.max_delegated_partitions, device_families=task.device_families)
    try:
        model = load(task.path)
        result = check_model(model, prof, options)
        ranges, flips, described = _on_inputs(task, model, result) if task.inputs else (None, None, None)
    except GpucompatError as e:
        return records.error_record(task.path, prof.name, str(e).removeprefix(f"{task.path}: "), prof.release)
    analyses = analyze(model, result, ranges, flips)
    findings = [f for f in run_all(result, analyses) if selected(f.code, task.select, task.ignore)]
    sources = attribute(model, task.module_names)
    return {**records.model_record(result, findings, analyses, sources), "inputs": described}


def _on_inputs(task: Task, model, result) -> tuple[dict, dict, str]:
    """Every tensor's range on the task's inputs (the reference interpreter keeping intermediates;
    MediaPipe's Convolution2DTransposeBias run as its builtin twin, as verify runs it, the tensors
    keeping their indices), the classifier-like outputs whose top class emulated fp16 flips there
    (fp16_emulation.py), and what the inputs were."""
    from gpucompat import ir
    from gpucompat.fp16_emulation import class_flips
    from gpucompat.sample_inputs import load
    from gpucompat.value_ranges import observe
    from gpucompat.verification.reference_model import with_builtin_twins

    data = bytes(model.source)  # what `load` mapped (a bundle's section too): the file is not read again
    samples = load(task.inputs, model, task.normalization)
    runnable = ir.from_bytes(data, task.path)
    if with_builtin_twins(runnable):
        data = ir.to_bytes(runnable)
    gpu = {o.index for o in result.ops if o.subgraph == 0 and o.placement == "gpu"}
    return (observe(model, data, task.path, samples.values),
            class_flips(model, data, gpu, samples.values, task.path), samples.description)


def check_many(tasks: list[Task], jobs: int = 1) -> list[dict]:
    """Records of every task, in task order."""
    if jobs <= 1 or len(tasks) <= 1:
        return _with_progress(_in_turn(tasks), len(tasks))
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, len(tasks) // (jobs * 8))
    # a worker checks many models: its collector runs between them (the command line's is off)
    with ProcessPoolExecutor(max_workers=jobs, initializer=gc.enable) as pool:
        return _with_progress(pool.map(check_one, tasks, chunksize=chunk), len(tasks))


def _in_turn(tasks: list[Task]):
    """Records of the tasks, one after another. With the collector off (the command line keeps it
    off), the previous model's IR, cyclic garbage once its record is made, is collected before
    the next model is read, so memory stays that of one model. What survives (the objects alive
    before, the records made so far) is set aside each time (gc.freeze), so that each collection
    walks only the last model's objects; all of it is handed back to the collector at the end."""
    collect = not gc.isenabled() and len(tasks) > 1
    try:
        for task in tasks:
            if collect:
                gc.collect()
                gc.freeze()
            yield check_one(task)
    finally:
        if collect:
            gc.unfreeze()


def _with_progress(results, total: int) -> list[dict]:
    """Collect `results`; show a bar on stderr once the run is slow, only on a terminal."""
    out: list[dict] = []
    start = time.monotonic()
    bar = None
    try:
        for rec in results:
            out.append(rec)
            if bar is None and sys.stderr.isatty() and len(out) < total \
                    and time.monotonic() - start > PROGRESS_AFTER_S:
                bar = _progress_bar(total)
            if bar is not None:
                bar.update(bar.task_ids[0], completed=len(out))
    finally:
        if bar is not None:
            bar.stop()
    return out


def _progress_bar(total: int):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress("checking", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    bar.add_task("models", total=total)
    bar.start()
    return bar
