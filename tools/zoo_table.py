"""Regenerate docs/zoo.md from the zoo's judgements (`python tools/zoo_table.py [RESULTS]`, default
~/.cache/gpucompat-zoo/results.json, written by `python -m tools.zoo judge`): each model's agreement
with the real accelerator on every point, what `verify` and `fix` did (and the rewrite steps fix
refused), the models the converter could not build, and the totals. `python tools/zoo_table.py
--numerics` regenerates docs/zoo-numerics.md from `python -m tools.zoo numerics`'s records: what the
accelerator computes on each model, at fp32 and fp16, beside what `check` says; `--llm` regenerates
docs/zoo-llm.md from `python -m tools.zoo llm`'s records (the LLM exports, signature by signature)."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.zoo import judge, known, results  # noqa: E402

DOC = Path(__file__).resolve().parents[1] / "docs" / "zoo.md"
NUMERICS_DOC = DOC.with_name("zoo-numerics.md")
LLM_DOC = DOC.with_name("zoo-llm.md")
PRECISIONS = ("fp32", "fp16")
POINT_TITLES = {"compiles": "compiles", "gpu_ops": "GPU ops", "partitions": "partitions", "full": "full",
                "rejected": "rejected", "gate": "gate"}


def _architecture(rec: dict) -> str:
    """The architecture a model stands for, named alike across families (MobileNetV2 = mobilenet_v2)."""
    return rec["architecture"].lower().replace("_", "")


def _command(outcome: dict, passed: str) -> str:
    """One cell for a verify or fix run: what it ended in and how long it took."""
    if outcome is None:
        return "not run yet"
    if outcome["timed_out"]:
        return "timed out"
    if outcome["internal_error"]:
        return "**internal error**"
    if outcome["exit"] is not None and outcome["exit"] < 0:
        return f"**crashed (signal {-outcome['exit']})**"
    if outcome["exit"] == 0 and _nothing_fixed(outcome):
        passed = "nothing to fix"
    word = {0: passed, 1: "fail", 2: "error"}.get(outcome["exit"], f"exit {outcome['exit']}")
    return f"{word} ({outcome['seconds']:.0f} s)"


def _nothing_fixed(outcome: dict) -> bool:
    """Whether a fix run changed nothing: no rewrite applied (recorded from its JSON report), or, in
    records older than that, its last lines say so."""
    if "applied" in outcome:
        return not outcome["applied"]
    return any("nothing to fix" in line for line in outcome["tail"])


def _row(name: str, rec: dict) -> str:
    points = rec["confirm"]["points"]
    cells = ["✓" if points[p] else "**✗**" for p in POINT_TITLES]
    runtime = rec["confirm"]["runtime"]
    seen = sum(runtime["ops_seen"].values())
    gpu = f"{sum(runtime['gpu_ops'].values())}/{seen}" if runtime["compiles"] else "does not compile"
    return (f"| {name} | {rec['quantization']} | {gpu} | " + " | ".join(cells)
            + f" | {_command(rec['verify'], 'pass')} | {_command(rec['fix'], 'fixed')} |")


def totals(records: dict[str, dict]) -> list[str]:
    """The summary lines: models, architectures, quantization modes, agreement."""
    n = len(records)
    agree = sum(1 for r in records.values() if r["confirm"]["agree"])
    lines = [f"- models judged: **{n}** ({', '.join(f'{f} {c}' for f, c in _count(records, 'family'))})",
             f"- architectures: **{len({_architecture(r) for r in records.values()})}**",
             f"- quantization modes: **{len({r['quantization'] for r in records.values()})}** "
             f"({', '.join(f'{q} {c}' for q, c in _count(records, 'quantization'))})",
             f"- agree with the real accelerator on every point: **{agree}/{n}"
             f" ({100 * agree / max(n, 1):.1f}%)**"]
    for point, title in POINT_TITLES.items():
        ok = sum(1 for r in records.values() if r["confirm"]["points"][point])
        lines.append(f"  - {title}: {ok}/{n}")
    for command in ("verify", "fix"):
        ran = [r[command] for r in records.values() if r[command] is not None]
        internal = sum(1 for o in ran if _broke(o))
        timed_out = sum(1 for o in ran if o["timed_out"])
        seconds = sorted(o["seconds"] for o in ran) or [0.0]
        lines.append(f"- `{command}` run on {len(ran)} of them: {internal} internal error(s) or crash(es), "
                     f"{timed_out} timed out "
                     f"(after {judge.COMMAND_TIMEOUT:.0f} s); median {seconds[len(seconds) // 2]:.0f} s, "
                     f"longest {seconds[-1]:.0f} s (on a shared, loaded machine)")
    return lines


def _broke(outcome: dict) -> bool:
    """An internal error, or the process killed by a signal (a crash)."""
    return bool(outcome["internal_error"]) or (outcome["exit"] is not None and outcome["exit"] < 0)


def _count(records: dict[str, dict], key: str) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for r in records.values():
        counts[r[key]] = counts.get(r[key], 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])


def render(records: dict[str, dict], failures: dict[str, str], judged_on: str) -> str:
    """docs/zoo.md's text; `judged_on` says when the judgements were made."""
    out = ["# The zoo: real architectures against the real accelerator", "",
           "Generated by `python tools/zoo_table.py` from the judgements of `python -m tools.zoo judge`;",
           "do not edit by hand. How the zoo is built and judged: [fidelity.md](fidelity.md#the-zoo).",
           "What the accelerator computes on each model, beside `check`: [zoo-numerics.md](zoo-numerics.md).",
           f"Judged {judged_on}.", "",
           "## Totals", "", *totals(records), "",
           "## Disagreements with the real accelerator", ""]
    disagreeing = {k: r for k, r in records.items() if not r["confirm"]["agree"]}
    if not disagreeing:
        out.append("None.")
    for name, rec in sorted(disagreeing.items()):
        runtime = rec["confirm"]["runtime"]
        why = known.KNOWN_DISAGREEMENTS.get(name, "not classified yet")
        out.append(f"- **{name}** ({why}): " + "; ".join(rec["confirm"]["disagreements"])
                   + (f". Runtime: `{runtime['failure'] or runtime['error']}`" if not runtime["compiles"] else ""))
    out += ["", "## Internal errors and crashes in `verify` and `fix`", ""]
    internal = [(k, c, r[c]["internal_error"] or f"killed by signal {-r[c]['exit']}")
                for k, r in sorted(records.items()) for c in ("verify", "fix") if r[c] and _broke(r[c])]
    out += [f"- **{k}** `{c}`: `{line}`" for k, c, line in internal] or ["None."]
    out += ["", "## Rewrite steps `fix` refused", "",
            "A step that would delegate a form LiteRT's accelerator computes wrongly, or one never measured "
            "that the input delegated nowhere, is refused unless the accelerator checks the output in that "
            "run (the zoo runs `fix` without it).", ""]
    refused = [(k, line) for k, r in sorted(records.items()) for line in (r["fix"] or {}).get("refused", [])]
    unrecorded = sum(1 for r in records.values() if r["fix"] and "refused" not in r["fix"])
    out += [f"- **{k}**: {line}" for k, line in refused] or ["None."]
    if unrecorded:
        out.append(f"({unrecorded} fix run(s) judged before refusals were recorded.)")
    out += ["", "## Every model", "",
            "Runtime GPU ops: ops the real accelerator took / ops it saw, all subgraphs. ✓: the "
            "`litert-mldrift` prediction equals the runtime on that point. verify: `gpucompat verify "
            "MODEL --runs 1` on the included executor; fix: `gpucompat fix MODEL -o OUT --format json`.", "",
            "| model | quantization | runtime GPU ops | " + " | ".join(POINT_TITLES.values()) + " | verify | fix |",
            "|---" * (5 + len(POINT_TITLES)) + "|"]
    out += [_row(k, r) for k, r in sorted(records.items())]
    out += ["", "## Models the converter could not build", ""]
    out += [f"- {k}: {why}" for k, why in sorted(failures.items())] or ["None."]
    return "\n".join(out) + "\n"


def _numbers(v: dict) -> str:
    """One precision's cell: the verdict, the worst max error (of the largest output) and cosine."""
    if "error" in v:
        return f"no output: {v['error'][:90]}"
    word = "**wrong**" if v["wrong"] else "right"
    int8 = f"; CPU int8 {v['cpu_int8']['max_error']:.2g}" if "cpu_int8" in v else ""
    return f"{word} ({v['max_error']:.2g}, cos {v['cosine']:.4f}{int8})"


AGREEMENT = {"agree": "✓", "warned": "warned (GPU007)", "silent": "**silent**", "false alarm": "false alarm"}


def _fixed(rec: dict) -> str:
    """The fix cell: the rewrites `fix` applied without a Vulkan device, and the fixed model's fp32
    verdict with how `check` stands to it."""
    fixed = rec.get("fixed")
    if fixed is None:
        return "not run yet"
    if not fixed["applied"]:
        return "nothing applied"
    rewrites = ", ".join(sorted(set(fixed["applied"])))
    if "fp32" not in fixed:
        return f"{rewrites}: {fixed.get('skipped', 'not run')}"
    agree = AGREEMENT[fixed["fp32"]["check"]] if "check" in fixed["fp32"] else "—"
    return f"{rewrites}: {_numbers(fixed['fp32'])}, check {agree}"


def _numerics_row(name: str, rec: dict) -> str:
    if "skipped" in rec:
        return f"| {name} | {rec['quantization']} | not run: {rec['skipped']} | | | | |"
    said = rec["check"]
    flags = ", ".join(c for c in said["codes"] if c in ("GPU005", "GPU007", "GPU008", "PREC408")) or "—"
    agree = " / ".join(AGREEMENT[rec[p]["check"]] if "check" in rec[p] else "—" for p in PRECISIONS)
    return (f"| {name} | {rec['quantization']} | {_numbers(rec['fp32'])} | {_numbers(rec['fp16'])} | "
            f"{flags} (wrong {said['ops_wrong']}, unmeasured {said['ops_unmeasured']}) | {agree} | {_fixed(rec)} |")


def _fix_totals(run: dict[str, dict]) -> str:
    """What fix without a Vulkan device did to the models the accelerator ran at fp32."""
    changed = {k: r for k, r in run.items() if r.get("fixed", {}).get("applied") and "wrong" in r["fp32"]
               and "wrong" in r["fixed"].get("fp32", {})}
    broke = sum(1 for r in changed.values() if not r["fp32"]["wrong"] and r["fixed"]["fp32"]["wrong"])
    repaired = sum(1 for r in changed.values() if r["fp32"]["wrong"] and not r["fixed"]["fp32"]["wrong"])
    silent = sum(1 for r in changed.values() if r["fixed"]["fp32"]["check"] == "silent")
    return (f"- `fix --profile litert-mldrift` without a Vulkan device rewrote **{len(changed)}** of them (fixed model "
            f"run at fp32): turned **{broke}** right model(s) wrong, repaired **{repaired}** wrong one(s); "
            f"check silent on **{silent}** wrong fixed model(s)")


def render_numerics(records: dict[str, dict], judged_on: str) -> str:
    """docs/zoo-numerics.md's text."""
    from tools.zoo import numerics

    run = {k: r for k, r in records.items() if "skipped" not in r}
    out = ["# The zoo's numerics: what the real accelerator computes, beside `check`", "",
           "Generated by `python tools/zoo_table.py --numerics` from the records of `python -m tools.zoo "
           "numerics`; do not edit by hand.",
           f"Judged {judged_on}, LiteRT's GPU accelerator on Mesa's lavapipe (an adapter with fp16 shaders).", "",
           "Each model with float inputs and outputs runs one seeded input set (N(0, 1); an open batch at "
           "1, other open axes at 1024) on the accelerator at fp32 (`enforce_f32`) and at its fp16 default, "
           "the ops it refuses on LiteRT's CPU. What it is judged against (tools/zoo/numerics.py):",
           "- fp32, fp16 weights, dynamic batch, MediaPipe's shipped models: the CPU interpreter on the "
           "stored model;",
           "- dynamic-range int8 and ai-edge-quantizer recipes: the CPU on the model with the GPU's hybrid "
           "ops' weights dequantized (the CPU's hybrid kernels quantize activations, the GPU does not);",
           "- full int8: the float model it was quantized from (the zoo's fp32 twin): the GPU is right when "
           f"within {numerics.INT8_FACTOR:g}x the CPU int8 kernels' own distance from it (at fp16 plus "
           f"{numerics.INT8_FACTOR:g}x the twin's own distance when rounded to half), plus fp32 noise.",
           f"At fp32 right is within {numerics.FP32_RTOL:g} of the output's largest magnitude; at fp16, "
           "against the same reference with every GPU-written tensor rounded to half, within "
           f"{numerics.FP16_RTOL:g} and a cosine of at least {numerics.FP16_MIN_COSINE}; both past verify's "
           "absolute floor (1e-5 at fp32, 1e-4 at fp16: an output near 0 carries its rounding).", "",
           "`check --profile litert-mldrift` agrees (✓) when it flags the model exactly when the accelerator "
           "computes it wrongly: at fp32 with GPU005 / GPU008, at fp16 with GPU008, PREC408 or a GPU005 on a "
           "form wrong at fp16 too. Cells: verdict (worst max error, worst cosine).", "", "## Totals", "",
           f"- models: **{len(records)}**; run: {len(run)}; not run (inputs or outputs not float, or no "
           f"float twin): {len(records) - len(run)}"]
    for p in PRECISIONS:
        judged = [r[p] for r in run.values() if "wrong" in r[p]]
        counts = {word: sum(1 for v in judged if v["check"] == word) for word in AGREEMENT}
        out.append(f"- at {p}: {len(judged)} with outputs ({sum(1 for r in run.values() if 'error' in r[p])} "
                   f"without: the accelerator refused or crashed); **{sum(v['wrong'] for v in judged)} wrong**; "
                   f"check agrees on **{counts['agree']}**, warns of an unmeasured form on {counts['warned']}, "
                   f"is silent on **{counts['silent']}**, raises {counts['false alarm']} false alarm(s)")
    out.append(_fix_totals(run))
    out += ["", "## Where `check` and the accelerator differ", ""]
    differ = [f"- **{k}** at {p}: {AGREEMENT[r[p]['check']]}; {_numbers(r[p])}; check: {', '.join(r['check']['codes'])}"
              for k, r in sorted(run.items()) for p in PRECISIONS if r[p].get("check", "agree") != "agree"]
    differ += [f"- **{k}** fixed, at fp32: {AGREEMENT[r['fixed']['fp32']['check']]}; {_numbers(r['fixed']['fp32'])}; "
               f"check: {', '.join(r['fixed']['check']['codes'])}" for k, r in sorted(run.items())
               if r.get("fixed", {}).get("fp32", {}).get("check", "agree") != "agree"]
    out += differ or ["None."]
    out += ["", "## Every model", "", "| model | quantization | fp32 | fp16 | check | agrees (fp32 / fp16) | "
            "fix without Vulkan, then fp32 |", "|---|---|---|---|---|---|---|"]
    out += [_numerics_row(k, r) for k, r in sorted(records.items())]
    return "\n".join(out) + "\n"


def _write(doc: Path, text: str) -> None:
    part = doc.with_name(doc.name + ".part")
    part.write_text(text)
    part.replace(doc)
    print(f"wrote {doc}")


def _stamp(path: Path) -> str:
    return datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def main() -> None:
    """Write docs/zoo.md atomically, from the results file named on the command line (default: the
    zoo cache's results.json); with --numerics, docs/zoo-numerics.md from the numerics records."""
    if sys.argv[1:] == ["--numerics"]:
        _write(NUMERICS_DOC, render_numerics(results.load_numerics(), _stamp(results.numerics_path())))
        return
    if sys.argv[1:] == ["--llm"]:
        from tools.zoo import llm_table

        _write(LLM_DOC, llm_table.render(results.load(results.llm_path()), _stamp(results.llm_path())))
        return
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else results.path()
    records = results.load(where)
    _write(DOC, render(records, {k: why for k, why in results.failures().items() if k not in records},
                       _stamp(where)))


if __name__ == "__main__":
    main()
