"""The Python API: `gpucompat.check`, `gpucompat.fix` and `gpucompat.verify` return the records the
commands' JSON output is made of (docs/json-schema.md), without the command line's settings file.

    import gpucompat
    rec = gpucompat.check("model.tflite", profile="litert-mldrift")
    print(rec["summary"]["ops_gpu"], "of", rec["summary"]["ops_total"], "ops on the GPU")

A model that cannot be read, or a bad argument, raises gpucompat.errors.GpucompatError with the
one-line message the command prints."""

from __future__ import annotations

from collections.abc import Sequence


def check(path: str, profile: str = "gpu-current", *, backend: str | None = None, max_delegated_partitions: int = 1,
          no_quant: bool = False, select: Sequence[str] = (), ignore: Sequence[str] = (),
          device_families: Sequence[str] = ()) -> dict:
    """One model's record under one profile, as an entry of `gpucompat check --format json`'s
    "models": per-op placements and reasons, partitions, analyses, findings; `device_families`
    (adreno, mali, apple, webgpu) adds the DEV6xx findings of public reports on those GPUs."""
    from gpucompat.config import known_codes
    from gpucompat.errors import GpucompatError
    from gpucompat.pipeline import Task, check_one
    from gpucompat.rules.lint.device_reports.families import parse_families
    from gpucompat.rules.support import registry

    backend = registry.backend_for(profile, backend)
    registry.get_with_backend(profile, backend)
    rec = check_one(Task(path, profile, backend, not no_quant, max_delegated_partitions,
                         known_codes(tuple(c.upper() for c in select), "select"),
                         known_codes(tuple(c.upper() for c in ignore), "ignore"),
                         device_families=parse_families(list(device_families), "device_families")))
    if rec["error"]:
        raise GpucompatError(f"{path}: {rec['error']}")
    return rec


def fix(path: str, output: str | None = None, *, rewrites: Sequence[str] | None = None,
        skip: Sequence[str] | None = None, unsafe_fixes: bool = False, profile: str = "gpu-current",
        backend: str | None = None, max_delegated_partitions: int = 1, no_quant: bool = False, verify: bool = True,
        in_place: bool = False, input_shapes: dict[str, Sequence[int]] | None = None,
        require_gpu_proof: bool = False) -> dict:
    """Rewrite the model so the delegate takes more of it, prove the outputs unchanged (unless
    `verify` is False) and write it to `output` (nothing is written when `output` is None or the
    proof fails); the record `gpucompat fix --format json` prints. `input_shapes` ({input name:
    shape}) freezes those inputs, as `--input-shape` does; `require_gpu_proof` as
    `--require-gpu-proof` (docs/fix.md)."""
    from gpucompat import rewrites as catalogue
    from gpucompat.fixing import run
    from gpucompat.output import fix_view
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    backend = registry.backend_for(profile, backend)
    prof = registry.get_with_backend(profile, backend)
    options = Options(allow_quant=not no_quant, backend=backend, max_delegated_partitions=max_delegated_partitions)
    shapes = {name: tuple(int(d) for d in shape) for name, shape in input_shapes.items()} if input_shapes else None
    chosen = catalogue.select(list(rewrites) if rewrites is not None else None, list(skip or ()), unsafe_fixes, shapes)
    checked = verify and run.accelerator_asked(prof, require_gpu_proof=require_gpu_proof)
    result = run.fix_file(path, chosen, prof, options, checked)
    if output is not None or verify:
        run.prove_and_write(result, chosen, output, in_place, verify, require_gpu_proof=require_gpu_proof)
    return fix_view.document(result)


def verify(path: str, *, runs: int = 50, precision: str = "fp32", profile: str = "gpu-current",
           device: str | None = None, atol: float | None = None, rtol: float | None = None,
           against: str | None = None, seed: int = 0, localize: bool = False, runner: str = "opencl",
           signature: str | None = None) -> dict:
    """Run the model on `runner` (a name in gpucompat/runners' table; by default the included
    OpenCL executor, CPU partitions on the reference interpreter) and compare its outputs with the
    reference interpreter; the record `gpucompat verify --format json` prints ("passed", per-output
    errors, the first divergent op with `localize`). `signature` runs that signature; by default
    every signature of a model whose signatures run different subgraphs ({"signatures": [...]})."""
    from dataclasses import replace

    from gpucompat.verification.session import Settings, by_signature, signatures_to_run, verify_model

    settings = Settings(runs=runs, precision=precision, profile=profile, device=device, atol=atol, rtol=rtol,
                        against=against, seed=seed, localize=localize, runner=runner, signature=signature)
    results = [verify_model(path, replace(settings, signature=name)) for name in signatures_to_run(path, settings)]
    return results[0].record() if len(results) == 1 else by_signature(path, results)
