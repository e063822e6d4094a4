"""Terminal output, modelled on inference_diff's log: latencies, then per output the error
statistics, then the verdict."""

from __future__ import annotations


def render(console, doc: dict, ops_gpu: int, ops_total: int) -> None:
    """Print one verify document; names from the model are shown printable and as plain text
    (never as rich markup or terminal control codes)."""
    from rich.markup import escape

    from gpucompat.output.text import printable_record

    doc = printable_record(doc)
    doc = {**doc, "model": escape(doc["model"]), "outputs": [{**o, "name": escape(o["name"])} for o in doc["outputs"]]}
    ref, test = doc["reference"]["latency_ms"], doc["test"]["latency_ms"]
    console.print(f"[bold]{doc['model']}[/]  precision {doc['precision']}, {doc['runs']} runs, "
                  f"{ops_gpu}/{ops_total} ops on the GPU executor ({doc['device']})")
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
        console.print(f"    relative error {_num(o['max_rel_error'])} of max|ref| within {o['tolerance']}{noise}")
    bad = doc["first_divergent_op"]
    if bad:
        console.print(f"  first divergent op: op#{bad['index']} {bad['op']} ({bad['placement']}) -> "
                      f"tensor {escape(repr(bad['tensor']))}, max_abs_error={bad['max_abs_error']}")
    word = "[green]PASSED[/]" if doc["passed"] else "[red]FAILED[/]"
    rest = doc["verdict"].split(" ", 1)[1] if " " in doc["verdict"] else ""
    console.print(f"{word} {escape(rest)}" if rest else word)


def _num(x: float | None) -> str:
    """A statistic for the terminal: 3 significant digits, "inf" for an error no tolerance covers."""
    return "inf" if x is None else f"{x:.3g}"
