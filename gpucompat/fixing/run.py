"""`fix` as a pipeline: check, rewrite to a fixpoint, check again, verify, write.

Each step is its own function so the command, the benchmark and the tests can stop where they
need to (the benchmark times `rewrite_model` alone; `--dry-run` stops before verification).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpucompat import ir
from gpucompat.confirm.compare import PROFILE as ACCELERATOR_PROFILE
from gpucompat.fixing.runtime_version import raise_min_runtime_version
from gpucompat.ir.buffers import check_metadata_references, compact_buffers
from gpucompat.ir.reader import read_bytes
from gpucompat.ir.writer import write_atomic
from gpucompat.placement import ModelResult, check_model
from gpucompat.rewrites import engine
from gpucompat.rewrites.engine import Rewrite, RewriteContext, Trace
from gpucompat.rules.profile import Options, Profile
from gpucompat.verify.fix_proof import Verifications, verify, verify_everywhere


@dataclass
class Fix:
    """A fixed model and everything known about it."""

    path: str
    original: bytes
    fixed: bytes
    trace: Trace
    before: ModelResult
    after: ModelResult
    verification: Verifications | None = None
    failing_rewrites: list[str] | None = None  # named after a failed verification
    output: str | None = None
    samples: list | None = None  # representative inputs to verify on (input values per run); None: seeded
    inputs_described: str | None = None  # what `samples` are (sample_inputs.Samples.description)

    @property
    def changed(self) -> bool:
        return bool(self.trace.applied)

    @property
    def verified(self) -> bool:
        """True when verification ran and passed, or nothing changed."""
        return not self.changed or (self.verification is not None and self.verification.ok)


def rewrite_model(model: ir.Model, rewrites: list[Rewrite], profile: Profile, options: Options) -> Trace:
    """Apply the rewrites in place; the trace of what was and was not applied. The
    `min_runtime_version` metadata is raised when a rewritten op needs a newer runtime."""
    check_metadata_references(model)
    trace = engine.apply(model, rewrites, RewriteContext(profile, options))
    if trace.applied:
        compact_buffers(model)
        raise_min_runtime_version(model)
    return trace


def fix_file(path: str, rewrites: list[Rewrite], profile: Profile, options: Options) -> Fix:
    """Load `path`, check it, rewrite it and check the result (nothing verified or written)."""
    original = read_bytes(path)
    before = check_model(ir.from_bytes(original, path), profile, options)
    model = ir.from_bytes(original, path)
    trace = rewrite_model(model, rewrites, profile, options)
    fixed = ir.to_bytes(model) if trace.applied else original
    after = check_model(ir.from_bytes(fixed, path), profile, options)
    return Fix(path, original, fixed, trace, before, after)


def verify_fix(fix: Fix, on_accelerator: bool = False) -> Verifications | None:
    """Run the numerical comparison on every backend when something changed, the executor placing
    ops as the fix's profile and options do; also on LiteRT's real GPU accelerator when asked, or
    when the fix aims at it (profile litert-mldrift); the result is kept on `fix`."""
    if fix.changed:
        fix.verification = verify_everywhere(fix.original, fix.fixed, fix.trace.safeties(),
                                             fix.after.profile.name, fix.after.options, fix.samples)
        if on_accelerator or fix.after.profile.name == ACCELERATOR_PROFILE:
            from gpucompat.fixing import on_accelerator as litert

            fix.verification.results.append(verify(fix.original, fix.fixed, fix.trace.safeties(), litert.backend()))
    return fix.verification


def write_fix(fix: Fix, output: str, in_place: bool) -> None:
    """Write the fixed model atomically; the input is protected unless `in_place`."""
    write_atomic(fix.fixed, output, protect=() if in_place else (fix.path,))
    fix.output = output


def prove_and_write(fix: Fix, rewrites: list[Rewrite], output: str | None, in_place: bool,
                    verify: bool = True, on_accelerator: bool = False) -> bool:
    """Verify the fix (unless `verify` is False; also on LiteRT's GPU accelerator when
    `on_accelerator`) and write it to `output` when it holds; after a failed verification name the
    rewrites to blame and write nothing. True when the fix holds."""
    if verify and verify_fix(fix, on_accelerator) is not None and not fix.verification.ok:
        fix.failing_rewrites = blame(fix, rewrites, fix.after.profile, fix.after.options)
        return False
    if output is not None and (fix.changed or output != fix.path):
        write_fix(fix, output, in_place)
    return True


def blame(fix: Fix, rewrites: list[Rewrite], profile: Profile, options: Options) -> list[str]:
    """After a failed verification: the applied rewrites that fail it when applied alone."""
    names = list(dict.fromkeys(e.rewrite for e in fix.trace.applied))
    guilty = []
    for rw in (r for r in rewrites if r.name in names):
        model = ir.from_bytes(fix.original, fix.path)
        trace = rewrite_model(model, [rw], profile, options)
        if trace.applied and not verify_everywhere(fix.original, ir.to_bytes(model), trace.safeties(),
                                                   profile.name, options, fix.samples).ok:
            guilty.append(rw.name)
    return guilty or names
