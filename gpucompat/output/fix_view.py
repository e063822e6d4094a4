"""What `fix` reports: before/after summaries, the trace, the verification, as JSON and text."""

from __future__ import annotations

from gpucompat.fixing.run import Fix, gpu_check_status
from gpucompat.output.by_source import shown_path
from gpucompat.placement import ModelResult
from gpucompat.verification import real_gpu_forms

SCHEMA_VERSION = 1


def summary(result: ModelResult, model_bytes: bytes, padding_waste: float) -> dict:
    """The before/after numbers: ops on the GPU, delegated partitions, padding waste, size."""
    return {"ops_total": result.ops_total, "ops_gpu": result.ops_gpu,
            "partitions_total": result.partitions_total, "partitions_delegated": result.partitions_delegated,
            "fully_delegated": result.fully_delegated, "delegation_fails": result.delegation_fails,
            "channel_padding_waste": round(padding_waste, 4), "size_bytes": len(model_bytes)}


def document(fix: Fix) -> dict:
    """The versioned JSON record of one fix (docs/fix.md)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "path": fix.path,
        "profile": fix.before.profile.name,
        "applied": [{"rewrite": e.rewrite, "safety": e.safety, "nodes": list(e.nodes), "sources": list(e.sources)}
                    for e in fix.trace.applied],
        "not_applied": [{"rewrite": e.rewrite, "candidate": e.candidate, "reason": e.reason}
                        for e in fix.trace.not_applied],
        "before": summary(fix.before, fix.original, fix.padding[0]),
        "after": summary(fix.after, fix.fixed, fix.padding[1]),
        "verification": _verification(fix),
        "real_gpu": _real_gpu(fix),
        "refusal": fix.refusal,
        "output": fix.output,
        "advice": fix.advice or [],
    }


def _real_gpu(fix: Fix) -> dict:
    """Whether LiteRT's real GPU accelerator checked the output in this run, and the output's
    delegated ops (under the profiles the calibration was measured for, and the fix's own when the
    GL delegate's table judges it) whose form is known wrong or never measured there at fp32, each
    marked introduced by the fix or already in the input."""
    audited = [name for name, _ in real_gpu_forms.audited_with(fix.after.profile, fix.after.options)]
    return {"check": gpu_check_status(fix), "profiles": [*real_gpu_forms.measured_profiles(), *audited],
            "precision": "fp32", "ops": [u.record() for u in fix.unproven or []]}


def _verification(fix: Fix) -> dict | None:
    if fix.verification is None:
        return None
    return {**fix.verification.record(), "failing_rewrites": fix.failing_rewrites or [],
            "inputs": fix.inputs_described or "seeded random"}


def render(console, doc: dict, verbose: bool = False) -> None:
    """The terminal view of `document(fix)`: what changed, how it was verified, what was written.
    The candidates a rewrite left alone (on a model with nothing to fix, one per op the profile
    already takes: hundreds) are counted, and listed only when `verbose`."""
    from rich.markup import escape
    from rich.table import Table

    console.print(f"[bold]{doc['path']}[/bold]  (profile {doc['profile']})")
    table = Table(show_edge=False, pad_edge=False)
    for col in ("", "before", "after"):
        table.add_column(col, justify="right" if col else "left")
    b, a = doc["before"], doc["after"]
    table.add_row("ops on GPU", f"{b['ops_gpu']}/{b['ops_total']}", f"{a['ops_gpu']}/{a['ops_total']}")
    table.add_row("delegated partitions", str(b["partitions_delegated"]), str(a["partitions_delegated"]))
    table.add_row("channel padding waste", f"{b['channel_padding_waste']:.0%}", f"{a['channel_padding_waste']:.0%}")
    table.add_row("model size", f"{b['size_bytes']:,} B", f"{a['size_bytes']:,} B")
    console.print(table)
    for line in doc["advice"]:
        console.print(f"  [yellow]needs a shape[/yellow] {escape(line)}")
    for e in doc["applied"]:
        where = f" (in {', '.join(shown_path(p) for p in e['sources'])})" if e.get("sources") else ""
        nodes = escape(", ".join(e["nodes"]) + where)
        console.print(f"  [green]applied[/green] {e['rewrite']} ({e['safety']}): {nodes}")
    for e in doc["not_applied"] if verbose else ():  # reasons hold form keys: "[n,n]" is no markup
        where = escape(f"{e['rewrite']} at {e['candidate']}: {e['reason']}")
        console.print(f"  [yellow]not applied[/yellow] {where}")
    if doc["not_applied"] and not verbose:
        console.print(f"  {_count(len(doc['not_applied']), 'candidate')} left alone (-v lists them)")
    v = doc["verification"]
    if v is not None:
        console.print(f"  verified on: {escape(v['inputs'])}")
    for b in v["backends"] if v is not None else ():
        worst = max((o["max_abs_diff"] for o in b["outputs"]), default=0.0)
        if b["not_run"]:
            console.print(f"  verification on the {b['backend']}: [yellow]not run[/yellow]: {escape(b['not_run'])}")
            continue
        state = "[green]passed[/green]" if b["ok"] else "[red]FAILED[/red]"
        console.print(f"  verification on the {b['backend']} ({b['tolerance']}): {state}, "
                      f"{b['error'] or f'max abs diff {worst:.3g}'}")
    if v is not None and v["failing_rewrites"]:
        console.print(f"  failing rewrite: {', '.join(v['failing_rewrites'])} (nothing written)")
    elif v is not None and any(b.get("original_failed") for b in v["backends"]):
        console.print("  the original model itself fails on the proof's inputs, so no rewrite is proven (nothing "
                      "written): give inputs it runs on with --inputs samples.npz")
    _render_real_gpu(console, doc["real_gpu"])
    if doc["refusal"]:
        console.print(f"  [red]not written[/red]: {escape(doc['refusal'])}")
    elif not doc["applied"]:  # written only when the output is another file: a pipeline expects it there
        said = "nothing fixed: the shapes keep the model off the GPU" if doc["advice"] else "nothing to fix"
        console.print(said + (f"; wrote an identical copy to {doc['output']}" if doc["output"] else ""), markup=False)
    elif doc["output"]:
        console.print(f"  wrote {doc['output']}", markup=False)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _render_real_gpu(console, real: dict) -> None:
    """The real-GPU check's state and the output's ops not known right there."""
    from rich.markup import escape

    from gpucompat.verification.real_gpu_forms import UnprovenOp

    check = real["check"]
    color = "green" if check == "passed" else "red" if check == "failed" else "yellow"
    console.print(f"  real-GPU check (LiteRT's accelerator): [{color}]{escape(check)}[/{color}]")
    line = real_gpu_forms.summary([UnprovenOp.from_record(u) for u in real["ops"]])
    if line:
        checked = " (checked on the accelerator in this run)" if check == "passed" else ""
        console.print(f"  output under {', '.join(real['profiles'])} at {real['precision']}: {escape(line)}{checked}")
