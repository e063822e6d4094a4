"""`fix` as a pipeline: check, rewrite to a fixpoint, check again, verify, write.

Each step is its own function so the command, the benchmark and the tests can stop where they
need to (the benchmark times `rewrite_model` alone; `--dry-run` stops before verification).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass

from gpucompat import ir
from gpucompat.analyses.channel_padding import channel_padding
from gpucompat.errors import GpucompatError
from gpucompat.fixing.runtime_version import raise_min_runtime_version
from gpucompat.ir.buffers import check_metadata_references, compact_buffers
from gpucompat.ir.mapped import FileMap, copy_all, map_open
from gpucompat.ir.reader import map_model
from gpucompat.ir.writer import write_atomic, write_model
from gpucompat.placement import ModelResult, check_model
from gpucompat.progress import status
from gpucompat.rewrites import engine
from gpucompat.rewrites.engine import Rewrite, RewriteContext, Trace
from gpucompat.rewrites.freeze_shapes import FreezeShapes
from gpucompat.rules.support.profile import Options, Profile
from gpucompat.runners import REAL_GPU, Runner
from gpucompat.verification.fix_proof import Verification, Verifications, verify, verify_everywhere
from gpucompat.verification.real_gpu_forms import (
    UnprovenOp,
    audited_with,
    identity,
    introduced_unsafe,
    mark_introduced,
    measured_profiles,
    unproven_ops,
)


@dataclass
class Fix:
    """A fixed model and everything known about it. `original` and `fixed` are bytes-like: the
    input file's map and a map of the rewritten model staged in a temporary file."""

    path: str
    original: FileMap | bytes
    fixed: FileMap | bytes
    trace: Trace
    before: ModelResult
    after: ModelResult
    padding: tuple[float, float] = (0.0, 0.0)  # channel-padding waste before and after (as check reports it)
    verification: Verifications | None = None
    failing_rewrites: list[str] | None = None  # named after a failed verification
    output: str | None = None
    samples: list | None = None  # representative inputs to verify on (input values per run); None: seeded
    inputs_described: str | None = None  # what `samples` are (sample_inputs.Samples.description)
    unproven: list[UnprovenOp] | None = None  # the output's delegated ops not known right on the real GPU
    refusal: str | None = None  # why nothing was written although verification passed (--require-gpu-proof)
    advice: list[str] | None = None  # what the user must say for the rewrites left out to run

    @property
    def changed(self) -> bool:
        return bool(self.trace.applied)

    @property
    def verified(self) -> bool:
        """True when verification ran and passed, or nothing changed."""
        return not self.changed or (self.verification is not None and self.verification.ok)

    @property
    def accelerator_check(self) -> Verification | None:
        """The verification on LiteRT's real GPU accelerator, when one was asked for."""
        if self.verification is None:
            return None
        return next((r for r in self.verification.results if r.backend == REAL_GPU.title), None)

    @property
    def proven_on_gpu(self) -> bool:
        """True when the real accelerator ran the output in this run and it passed."""
        check = self.accelerator_check
        return check is not None and check.not_run is None and check.ok


def rewrite_model(model: ir.Model, rewrites: list[Rewrite], profile: Profile, options: Options,
                  refused: dict[tuple[str, str], str] | None = None, after_step=None) -> Trace:
    """Apply the rewrites in place; the trace of what was and was not applied (`refused` and
    `after_step` as engine.apply takes them). The `min_runtime_version` metadata is raised when a
    rewritten op needs a newer runtime."""
    check_metadata_references(model)
    trace = engine.apply(model, rewrites, RewriteContext(profile, options), refused, after_step)
    if trace.applied:
        compact_buffers(model)
        raise_min_runtime_version(model)
    return trace


def fix_file(path: str, rewrites: list[Rewrite], profile: Profile, options: Options,
             accelerator_checks: bool = False) -> Fix:
    """Load `path`, check it, rewrite it and check the result (nothing verified or written). The
    model is mapped, not read, and the rewritten one is streamed to a temporary file, untouched
    weights copied file to file: memory follows the graph and the buffers a rewrite makes.
    `accelerator_checks`: the caller will verify the output on LiteRT's real accelerator in this
    run (prove_and_write asked so), which lets a rewrite introduce a form never measured."""
    original = map_model(path)
    model = ir.from_bytes(original, path)
    with status(f"rewriting {path}"):
        before, waste_before = _checked(model, profile, options)  # read only: the same model is rewritten next
        model, trace, unproven = rewrite_guarded(original, model, rewrites, profile, options, accelerator_checks)
        if not trace.applied:  # the same bytes: the same result
            return Fix(path, original, original, trace, before, before, (waste_before, waste_before),
                       unproven=unproven, advice=shape_advice(model, before, rewrites))
        fixed = _staged(model)
        fixed_model = ir.from_bytes(fixed, path)
        after, waste_after = _checked(fixed_model, profile, options)
    return Fix(path, original, fixed, trace, before, after, (waste_before, waste_after), unproven=unproven,
               advice=shape_advice(fixed_model, after, rewrites))


def rewrite_guarded(original: FileMap | bytes, model: ir.Model, rewrites: list[Rewrite], profile: Profile,
                    options: Options, accelerator_checks: bool = False) -> tuple[ir.Model, Trace, list[UnprovenOp]]:
    """Rewrite `model` (read from `original`) so that no rewrite step makes an op delegated in a
    form LiteRT's GPU accelerator is known to compute wrongly that the input did not delegate so,
    nor in a form never measured that the input delegated nowhere unless the accelerator checks
    the output in this run (`accelerator_checks`, and a device answers the probe): the table
    (rules/support/calibration/, at fp32, under the profiles it was measured for) or this run's check must
    vouch for every form a rewrite brings in. When the result has such an op, the rewriting is
    replayed on a fresh copy, auditing after every step, and the step that last brought each one
    in is refused (that rewrite at that candidate, traced with the reason); then the rest is
    applied again. Returns the rewritten model, the trace and the output's delegated ops not known
    right (marked introduced or not)."""
    audited = audited_with(profile, options)
    before = unproven_ops(model, audited=audited)
    refused: dict[tuple[str, str], str] = {}
    unchecked: list[str | None] = []  # why the accelerator does not check this run (None: it does), asked once
    for _ in range(MAX_REFUSALS):
        trace = rewrite_model(model, rewrites, profile, options, refused)
        after = unproven_ops(model, audited=audited) if trace.applied else before
        unsafe = introduced_unsafe(before, after, unmeasured=True)
        if any(u.status == "unmeasured" for u in unsafe) and not unchecked:
            unchecked.append(accelerator_unchecked(accelerator_checks))
        if unchecked and unchecked[0] is None:  # the accelerator checks the forms its table never measured
            measured = measured_profiles()
            unsafe = [u for u in unsafe if u.status == "wrong" or u.profile not in measured]
        if not unsafe:
            return model, trace, mark_introduced(before, after)
        model = ir.from_bytes(original, model.path)
        refused.update(_steps_to_refuse(model, rewrites, profile, options, refused, before, unsafe,
                                        unchecked[0] if unchecked else None, audited))
        model = ir.from_bytes(original, model.path)
    raise GpucompatError(f"{model.path}: the rewrites keep delegating forms LiteRT's GPU accelerator computes "
                         f"wrongly or was never measured on after {MAX_REFUSALS} refusals; nothing was written")


MAX_REFUSALS = 100


def accelerator_unchecked(asked: bool) -> str | None:
    """Why LiteRT's real accelerator will not check the fix's output in this run, None when it
    will: it is `asked` and a device compiles the probe model (confirm/probe.py, about 2 s)."""
    if not asked:
        return ("the real-GPU check is not asked: --no-verify, --dry-run, or a profile other than "
                "litert-mldrift without --verify-on litert-gpu")
    from gpucompat.confirm import probe, runner

    try:
        found = probe.probe(runner.launcher())
    except GpucompatError as e:
        return str(e)
    return None if found.works else found.why.split(" (", 1)[0].split(":", 1)[0]


def _steps_to_refuse(model: ir.Model, rewrites: list[Rewrite], profile: Profile, options: Options,
                     refused: dict[tuple[str, str], str], before: list[UnprovenOp],
                     unsafe: list[UnprovenOp], unchecked: str | None,
                     audited: tuple = ()) -> dict[tuple[str, str], str]:
    """Replay the rewriting on `model` (a fresh copy), auditing after each step: the steps after
    which one of the ops of the result a rewrite must not bring in (`unsafe`) appeared last, with
    the reason (`unchecked`: why the accelerator does not check a form never measured)."""
    target = {identity(u): u for u in unsafe}
    present: set = set()
    blamed: dict[tuple, tuple[str, str]] = {}

    def audit(entry, key) -> None:
        unsafe_now = introduced_unsafe(before, unproven_ops(model, audited=audited), True)
        now = {identity(u) for u in unsafe_now} & target.keys()
        for ident in now - present:
            blamed[ident] = key
        present.clear()
        present.update(now)

    rewrite_model(model, rewrites, profile, options, refused, audit)
    if not blamed:  # the replay is deterministic: the result's ops appear at some step
        raise GpucompatError(f"{model.path}: internal error: no rewrite step to blame for {unsafe[0].where}")
    return {key: _refusal(target[ident], unchecked) for ident, key in blamed.items()}


def _refusal(u: UnprovenOp, unchecked: str | None) -> str:
    """Why a rewrite step is refused: the op it delegates, and what is known of its form."""
    if u.status == "wrong":
        return (f"refused: it makes {u.where} delegated under {u.profile}, a form {u.measured_on} "
                "computes wrongly at fp32 (rules/support/calibration/)")
    checks = (f"the accelerator does not check this run's output ({unchecked})" if u.profile in measured_profiles()
              else "nothing checks it in this run")
    return (f"refused: it makes {u.where} delegated under {u.profile}, a form never measured on {u.measured_on} "
            f"(rules/support/calibration/), and {checks}")


def shape_advice(model: ir.Model, result: ModelResult, rewrites: list[Rewrite]) -> list[str]:
    """What to pass when the shapes keep the model off the GPU and freeze-shapes, which changes
    the model's input signature and so runs only when asked, was not asked for: a subgraph gated
    by a dynamic tensor, or an op the interpreter cannot prepare at the stored input shapes."""
    if any(r.name == FreezeShapes.name for r in rewrites) or not model.graphs:
        return []
    why = [f"subgraph {s.index}: {s.gate}" for s in result.subgraphs if s.gate]
    if result.prepare_failure is not None:
        f = result.prepare_failure
        why.append(f"op#{f.index} {f.op} " + ("has an output without elements" if f.empty else "cannot be prepared")
                   + f" at the stored input shapes ({f.reason})")
    if not why:
        return []
    dynamic = [t for t in model.graphs[0].inputs if t is not None and t.is_dynamic]
    named = " ".join(f"--input-shape {t.name}=" + ",".join("N" if d < 0 else str(d) for d in t.signature)
                     for t in dynamic) or "--input-shape NAME=d0,d1,..."
    return [*why, f"freeze-shapes makes every shape static but changes the model's input signature, so it runs "
                  f"only when asked: pass {named} (the shape the app feeds, N for each dynamic dimension)"
                  + ("" if result.prepare_failure is not None else ", or --unsafe-fixes (batch 1)")]


def _checked(model: ir.Model, profile: Profile, options: Options) -> tuple[ModelResult, float]:
    """The check of a model and its channel-padding waste (the share `check` reports)."""
    result = check_model(model, profile, options)
    return result, channel_padding(model, result).waste_ratio


def _staged(model: ir.Model) -> FileMap | bytes:
    """The model written to an anonymous temporary file (gone when closed), mapped."""
    try:
        f = tempfile.TemporaryFile(prefix="gpucompat-fix-")  # noqa: SIM115 - the map keeps it open
        write_model(model, f)
        f.flush()
    except OSError as e:
        raise GpucompatError(f"{model.path}: cannot write the fixed model to a temporary file in "
                             f"{tempfile.gettempdir()} ({e.strerror or e}); nothing was written") from None
    return map_open(f)


def verify_fix(fix: Fix, asked: tuple[Runner, ...] = (), require_gpu_proof: bool = False) -> Verifications | None:
    """Run the numerical comparison on every runner that proves every fix when something changed,
    the executor placing ops as the fix's profile and options do; also on the `asked` runners, and
    on LiteRT's real GPU accelerator when `accelerator_asked` says so. With
    `require_gpu_proof`, an unchanged model with delegated ops not known right runs on the
    accelerator against itself on the reference interpreter. The result is kept on `fix`."""
    if not fix.changed and require_gpu_proof and fix.unproven:
        model = bytes(fix.original)
        fix.verification = Verifications([verify(model, model, {"exact"}, REAL_GPU, fix.samples)])
    if fix.changed:
        original, fixed, safeties = bytes(fix.original), bytes(fix.fixed), fix.trace.safeties()
        if accelerator_asked(fix.after.profile, asked, require_gpu_proof):
            asked = (*asked, REAL_GPU)  # verify_everywhere runs each runner once
        with status("verifying the fix"):  # one spinner line; each runner's step names itself on it
            fix.verification = verify_everywhere(original, fixed, safeties, fix.after.profile.name,
                                                 fix.after.options, fix.samples, asked)
    return fix.verification


def accelerator_asked(profile: Profile, asked: tuple[Runner, ...] = (), require_gpu_proof: bool = False) -> bool:
    """Whether verifying a fix runs it on LiteRT's real accelerator too: when it is among the
    `asked` runners (--verify-on), with `require_gpu_proof`, or when the profile is one of that
    accelerator's releases (litert-mldrift)."""
    return REAL_GPU in asked or require_gpu_proof or profile.release is not None


def write_fix(fix: Fix, output: str, in_place: bool) -> None:
    """Write the fixed model atomically; the input is protected unless `in_place`. With nothing
    changed, the input's own bytes: an identical copy, not a re-serialisation."""
    source = fix.fixed if fix.changed else fix.original
    write_atomic(lambda out: copy_all(source, out), output, protect=() if in_place else (fix.path,))
    fix.output = output


def prove_and_write(fix: Fix, rewrites: list[Rewrite], output: str | None, in_place: bool,
                    verify: bool = True, asked: tuple[Runner, ...] = (), require_gpu_proof: bool = False) -> bool:
    """Verify the fix (unless `verify` is False; also on the `asked` runners, and on LiteRT's GPU
    accelerator with `require_gpu_proof`) and write it to `output` when it holds; after a failed
    verification name the rewrites to blame and write nothing. With `require_gpu_proof`, an output
    that delegates an op not known right on the real GPU (fix.unproven) is not written either
    unless the accelerator checked it in this run (fix.refusal says why). A rewritten model that
    still runs nothing on the GPU, like its input, is neither verified nor written: the rewrites gain
    nothing (an LLM export whose composites could not all be inlined still crashes the compile).
    True when the fix holds."""
    if fix.changed and _no_gpu(fix.before) and _no_gpu(fix.after):
        fix.refusal = f"nothing gained: the rewritten model still runs nothing on the GPU ({_no_gpu(fix.after)})"
        return False
    if verify and verify_fix(fix, asked, require_gpu_proof) is not None \
            and not fix.verification.ok:
        if not any(v.original_failed for v in fix.verification.results):
            fix.failing_rewrites = blame(fix, rewrites, fix.after.profile, fix.after.options)
        return False
    if require_gpu_proof and fix.unproven and not fix.proven_on_gpu:
        fix.refusal = (f"--require-gpu-proof: the real GPU did not check this model ({gpu_check_status(fix)}) "
                       f"and {len(fix.unproven)} delegated op(s) are known wrong or never measured there")
        return False
    if output is not None and (fix.changed or output != fix.path):
        write_fix(fix, output, in_place)
    return True


def _no_gpu(result: ModelResult) -> str | None:
    """Why no op of the model runs on the GPU when the whole delegation fails, else None."""
    if result.failure:
        return result.failure
    return "the whole delegation fails" if result.delegation_fails else None


def gpu_check_status(fix: Fix) -> str:
    """Whether the real accelerator checked the output in this run: "passed", "failed", "not run:
    <why>" (no Vulkan device), or "not asked" (no --verify-on naming it, another profile than
    litert-mldrift, --no-verify, or nothing to verify)."""
    check = fix.accelerator_check
    if check is None:
        return "not asked"
    if check.not_run is not None:  # its first clause: the whole text is in the verification's entry
        return "not run: " + check.not_run.split(" (", 1)[0].split(":", 1)[0]
    return "passed" if check.ok else "failed"


def blame(fix: Fix, rewrites: list[Rewrite], profile: Profile, options: Options) -> list[str]:
    """After a failed verification: the applied rewrites that fail it when applied alone."""
    names = list(dict.fromkeys(e.rewrite for e in fix.trace.applied))
    original = bytes(fix.original)
    guilty = []
    for rw in (r for r in rewrites if r.name in names):
        with status(f"the fix failed its verification: trying {rw.name} alone"):
            model = ir.from_bytes(original, fix.path)
            trace = rewrite_model(model, [rw], profile, options)
            if trace.applied and not verify_everywhere(original, ir.to_bytes(model), trace.safeties(),
                                                       profile.name, options, fix.samples).ok:
                guilty.append(rw.name)
    return guilty or names
