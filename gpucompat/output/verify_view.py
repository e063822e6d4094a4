"""Terminal output, modelled on inference_diff's log: latencies, then per output the error
statistics, then the verdict."""

from __future__ import annotations


def render_signatures(console, doc: dict, ops: list[tuple[int, int]]) -> None:
    """Print a run over several signatures: each signature's document in turn, then how many passed."""
    from rich.markup import escape

    for one, (gpu, total) in zip(doc["signatures"], ops):
        render(console, one, gpu, total)
        console.print()
    failed = [escape(one["signature"]) for one in doc["signatures"] if not one["passed"]]
    count = len(doc["signatures"])
    console.print(f"{count} signatures: " + (f"[red]{len(failed)} FAILED[/] ({', '.join(failed)})" if failed
                                              else "[green]all passed[/]"))


def render(console, doc: dict, ops_gpu: int, ops_total: int) -> None:
    """Print one verify document; names from the model are shown printable and as plain text
    (never as rich markup or terminal control codes)."""
    from rich.markup import escape

    from gpucompat.text import printable_record

    doc = printable_record(doc)
    doc = {**doc, "model": escape(doc["model"]), "outputs": [{**o, "name": escape(o["name"])} for o in doc["outputs"]]}
    ref, test = doc["reference"]["latency_ms"], doc["test"]["latency_ms"]
    signature = f" signature {escape(doc['signature'])}" if doc.get("signature") else ""
    console.print(f"[bold]{doc['model']}[/]{signature}  precision {doc['precision']}, {doc['runs']} runs, "
                  f"{ops_gpu}/{ops_total} ops on the GPU ({doc['device']})")
    console.print(f"  Num evaluation runs: {doc['runs']} ({escape(doc['inputs'])})")
    if doc["reference"]["model"] != "as stored":
        console.print(f"  Reference: {doc['reference']['model']}")
    console.print(f"  Reference run latency: avg={ref['avg']:.3f} ms, std_dev={ref['std']:.3f} ms")
    console.print(f"  Test run latency: avg={test['avg']:.3f} ms, std_dev={test['std']:.3f} ms "
                  f"(init {doc['test']['init_ms']:.0f} ms)")
    for o in doc["outputs"]:
        mark = "[green]pass[/]" if o["passed"] else "[red]FAIL[/]"
        console.print(f"  OutputDiff[{o['index']}] {o['name']}: avg_error={_num(o['avg_error'])}, "
                      f"std_dev={_num(o['std_dev'])}, max_abs_error={_num(o['max_abs_error'])}, "
                      f"max_ref_abs={o['max_ref_abs']:.3g}  {mark}")
        noise = "" if o["noise_floor"] is None else \
            f", noise floor {o['noise_floor']:.3g} (error/noise {_num(o['error_to_noise'])})"
        console.print(f"    relative error {_num(o['max_rel_error'])} of max|ref| {_judged(o)}{noise}")
        for line in _task_lines(o["task"], doc["precision"]):
            console.print(f"    {line}")
    bad = doc["first_divergent_op"]
    if bad:
        console.print(f"  first divergent op: op#{bad['index']} {bad['op']} ({bad['placement']}) -> "
                      f"tensor {escape(repr(bad['tensor']))}, max_abs_error={bad['max_abs_error']}")
    word = "[green]PASSED[/]" if doc["passed"] else "[red]FAILED[/]"
    rest = doc["verdict"].split(" ", 1)[1] if " " in doc["verdict"] else ""
    console.print(f"{word} {escape(rest)}" if rest else word)


def _judged(o: dict) -> str:
    """How the output's error stands against its tolerance: "within" it, or "exceeds" it on a
    failing output, with the rounding sensitivity that judged the runs past atol + rtol."""
    from gpucompat.verification.tolerance import SENSITIVITY_FACTOR

    factor = f"{SENSITIVITY_FACTOR:g} x"
    if o["sensitivity"] is None:
        return f"within {o['tolerance']}" if o["within_tolerance"] else f"exceeds {o['tolerance']}"
    if o["within_tolerance"]:
        return (f"within {o['tolerance']} or, on the runs past it, within {factor} their rounding sensitivity "
                f"(up to {o['sensitivity']:.3g})")
    return f"exceeds {o['tolerance']} and {factor} the run's rounding sensitivity ({o['sensitivity']:.3g})"


def _task_lines(task: dict, precision: str) -> list[str]:
    """The task-level numerics of an output (gpucompat/verification/task_metrics.py) as lines:
    top classes for a classifier-like output, cosine, and what is all zero or not finite."""
    lines = [f"cosine similarity {task['cosine_min']:.6g} (worst run)"] if task["cosine_min"] is not None else []
    if task["classifier"] and task["top1_agreement"] is not None:
        changed = ": [red]fp16 changes the top class[/]" if task["class_flips"] and precision == "fp16" else ""
        flips = "; ".join(f"run {f['run']} row {f['row']}: class {f['reference_class']} -> {f['test_class']}"
                          for f in task["flips"])
        lines.insert(0, f"classifier-like: top-1 agreement {task['top1_agreement']:.1%}, "
                        f"top-5 agreement {task['top5_agreement']:.1%}, {task['class_flips']} class flip(s)"
                        + (f" ({flips})" if flips else "") + changed)
    if task["all_zero_runs"]:
        lines.append(f"[red]all zero on {task['all_zero_runs']} run(s) where the reference is not[/]")
    if task["nan"] or task["inf"] or task["reference_nan"] or task["reference_inf"]:
        lines.append(f"not finite: {task['nan']} NaN, {task['inf']} Inf "
                     f"(reference: {task['reference_nan']} NaN, {task['reference_inf']} Inf)")
    return lines


def _num(x: float | None) -> str:
    """A statistic for the terminal: 3 significant digits, "inf" for an error no tolerance covers."""
    return "inf" if x is None else f"{x:.3g}"
