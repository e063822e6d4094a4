"""docs/zoo-llm.md's text, from the LLM exports' records (tools/zoo/llm_judge.py): per export, the
accelerator against `litert-mldrift` signature by signature, `verify` on every signature, and what
`fix` made of it (proven per signature, the fixed model compiled on the accelerator)."""

from __future__ import annotations

from tools.zoo import judge
from tools.zoo.llm_export import VARIANTS

POINTS = {"compiles": "compiles", "gpu_ops": "GPU ops", "partitions": "partitions", "full": "full",
          "rejected": "rejected", "gate": "gate"}


def _per_signature(rec: dict, counts: dict[str, int]) -> str:
    """"prefill_8 59, prefill_32 59, decode 61" from counts per subgraph (JSON keys)."""
    names = rec["signatures"]
    return ", ".join(f"{names.get(k, 'subgraph ' + k)} {v}" for k, v in counts.items() if k in names) or "none"


def _accelerator(rec: dict, confirmed: dict | None) -> str:
    """What the accelerator did with the model: crash, refusal, or its GPU ops per signature."""
    if confirmed is None:
        return "not compiled"
    runtime = confirmed["runtime"]
    if runtime["crashed"]:
        return "**crashes**"
    if not runtime["compiles"]:
        return "does not compile"
    full = ", whole" if runtime["fully_delegated"] else ""
    return f"{_per_signature(rec, runtime['gpu_ops'])} ({_partitions(runtime)} partitions{full})"


def _partitions(side: dict) -> str:
    return "/".join(str(v) for v in side["partitions"].values()) or "0"


def _agrees(confirmed: dict | None) -> str:
    if confirmed is None:
        return "-"
    if confirmed["agree"]:
        return "✓"
    return "**✗** " + ", ".join(POINTS[p] for p, ok in confirmed["points"].items() if not ok)


def _verify(v: dict) -> str:
    runs = v["signatures"]
    if not runs:
        return f"**no result** (exit {v['exit']})"
    passed = sum(runs.values())
    word = "pass" if passed == len(runs) else f"**{len(runs) - passed} fail**"
    return f"{passed}/{len(runs)} {word} ({v['seconds']:.0f} s)"


def _proofs(fix: dict) -> str:
    proofs = fix["proofs"]
    if not proofs:
        return "-"
    failed = sum(1 for p in proofs.values() if p == "failed")
    not_run = sum(1 for p in proofs.values() if p == "not run")
    passed = len(proofs) - failed - not_run
    return (f"{passed} passed" + (f", **{failed} failed**" if failed else "")
            + (f", {not_run} not run" if not_run else ""))


def _fix(fix: dict) -> str:
    if fix["gpu_ops"] is None:
        return f"**no result** (exit {fix['exit']})"
    before, after, total = fix["gpu_ops"]
    if not fix["applied"]:
        return "nothing to fix"
    return f"{', '.join(fix['applied'])}: {before} → {after} of {total}"


def _row(name: str, rec: dict) -> str:
    fixed = rec["fix"].get("fixed")
    return (f"| {name} | {rec['mode']} | {_accelerator(rec, rec['confirm'])} | {_agrees(rec['confirm'])} | "
            f"{_verify(rec['verify'])} | {_fix(rec['fix'])} | {_proofs(rec['fix'])} | "
            f"{_accelerator(rec, fixed) if rec['fix']['applied'] else '-'} | "
            f"{_agrees(fixed) if rec['fix']['applied'] else '-'} |")


def totals(records: dict[str, dict]) -> list[str]:
    """The summary lines."""
    n = len(records)
    confirmed = [r["confirm"] for r in records.values()]
    crashed = sum(1 for c in confirmed if c["runtime"]["crashed"])
    compiled = sum(1 for c in confirmed if c["runtime"]["compiles"])
    agree = sum(1 for c in confirmed if c["agree"])
    bundles = {k: r for k, r in records.items() if r.get("bundle")}
    verified = [r["verify"] for r in records.values()]
    every = sum(1 for v in verified if v["signatures"] and all(v["signatures"].values()))
    fixes = [r["fix"] for r in records.values()]
    rewrote = [f for f in fixes if f["applied"]]
    fixed = [f["fixed"] for f in rewrote if f.get("fixed")]
    gained = sum(1 for f in rewrote if f["gpu_ops"][1] > f["gpu_ops"][0])
    whole = sum(1 for c in fixed if c["runtime"]["fully_delegated"])
    lines = [f"- exports judged: **{n}** ({len({r['architecture'] for r in records.values()})} architectures, "
             f"{len({r['quantization'] for r in records.values()})} quantization modes, {len(bundles)} .litertlm "
             f"bundles)",
             f"- as exported, the accelerator compiles **{compiled}**, crashes on **{crashed}** ("
             f"{sum(1 for c in confirmed if 'STABLEHLO_COMPOSITE' in (c['prediction'].get('failure') or ''))} "
             f"predicted for an `odml.*` composite, the rest for their weights)",
             f"- `litert-mldrift` equals the accelerator on every point on **{agree}/{n}**"]
    lines += [f"  - {title}: {sum(1 for c in confirmed if c['points'][p])}/{n}" for p, title in POINTS.items()]
    lines += [f"- `verify --profile litert-mldrift` passes every signature of **{every}/{n}**; the others: "
              + (", ".join(k for k, r in sorted(records.items()) if not (r["verify"]["signatures"] and all(
                  r["verify"]["signatures"].values()))) or "none"),
              f"- `fix --profile litert-mldrift` rewrote **{len(rewrote)}**, with more ops on the GPU in **{gained}**; "
              f"its proofs (reference interpreter, executor and the accelerator, each signature): "
              f"**{sum(1 for f in fixes if 'failed' in f['proofs'].values())}** export(s) with a failed proof",
              f"- fixed models on the accelerator: "
              f"**{sum(1 for c in fixed if c['runtime']['compiles'])}/{len(fixed)}** compile, **{whole}** whole on the "
              f"GPU; `litert-mldrift` equals the accelerator on "
              f"**{sum(1 for c in fixed if c['agree'])}/{len(fixed)}**"]
    if bundles:
        same = sum(1 for r in bundles.values() if r.get("same_as_plain"))
        lines.append(f"- .litertlm bundles: **{same}/{len(bundles)}** judged exactly like the plain export they "
                     f"bundle (both sides)")
    median = sorted(r["seconds"] for r in records.values())[n // 2] if n else 0.0
    lines.append(f"- median time per export (compile, verify, fix, compile again): {median:.0f} s")
    return lines


def render(records: dict[str, dict], judged_on: str) -> str:
    """docs/zoo-llm.md's text; `judged_on` says when."""
    out = ["# The zoo's LLM exports, signature by signature", "",
           "Generated by `python tools/zoo_table.py --llm` from the records of `python -m tools.zoo llm`; do not "
           f"edit by hand. Judged {judged_on}, LiteRT's GPU accelerator on Mesa's lavapipe.", "",
           "Small decoder-only models of litert-torch's generative examples (seeded random weights, embedding "
           "dim 128, at most 4 heads), exported as their convert scripts do: signatures prefill_8, prefill_32 "
           "and decode over an external KV cache of 64, `odml.*` composites (HLFB), under the converter's "
           "quantizations; and variants with the scripts' other flags: "
           + "; ".join(f"`{k}`: {v}" for k, v in VARIANTS.items()) + ".", "",
           "Per export: the accelerator's GPU ops per signature as exported (and its partitions per "
           "subgraph) beside `check --profile litert-mldrift` (✓: equal on every point: compile or crash, GPU "
           "ops per subgraph, partitions, full delegation, rejected op types, the dynamic-tensor gate); "
           "`verify --profile litert-mldrift --runs 1` on every signature (included executor); `fix --profile "
           "litert-mldrift` with its rewrites and GPU ops before → after (all signatures), its proofs on the "
           "reference interpreter, the executor and the accelerator for each signature, and the fixed model "
           f"compiled on the accelerator beside its prediction. Commands time out after "
           f"{judge.COMMAND_TIMEOUT:.0f} s.", "", "## Totals", "", *totals(records), "",
           "## Disagreements", ""]
    differ = [f"- **{k}**: " + "; ".join(r["confirm"]["disagreements"]) for k, r in sorted(records.items())
              if not r["confirm"]["agree"]]
    differ += [f"- **{k}** fixed: " + "; ".join(r["fix"]["fixed"]["disagreements"]) for k, r in sorted(records.items())
               if r["fix"].get("fixed") and not r["fix"]["fixed"]["agree"]]
    out += differ or ["None."]
    out += ["", "## Every export", "",
            "| export | quantization + flags | accelerator, GPU ops per signature | agrees | verify | fix | proofs | "
            "fixed, on the accelerator | agrees |", "|---" * 9 + "|"]
    out += [_row(k, r) for k, r in sorted(records.items())]
    return "\n".join(out) + "\n"
