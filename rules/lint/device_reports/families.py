"""The GPU families device reports name, the choice of them (`--device-family`, `device-families`),
and what the DEV rules share: the delegated ops of a type, the finding that cites its report."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from gpucompat.ir import Op
from gpucompat.rules.lint import Finding

FAMILIES = ("adreno", "mali", "apple", "webgpu")


def parse_families(value: str | list[str], where: str) -> tuple[str, ...]:
    """The GPU families of a flag ("adreno,mali") or a config value (a string or a list); an
    unknown one is a usage error naming it."""
    from gpucompat.errors import GpucompatError

    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise GpucompatError(f"{where}: expected GPU families ({', '.join(FAMILIES)}), got {value!r}")
    chosen = tuple(dict.fromkeys(v.strip().lower() for v in items if v.strip()))
    unknown = [v for v in chosen if v not in FAMILIES]
    if unknown:
        raise GpucompatError(f"{where}: unknown GPU family {unknown[0]!r} (known: {', '.join(FAMILIES)})")
    return chosen


def for_families(*families: str) -> Callable:
    """Decorate a DEV rule's function so that it runs only when the check names one of `families`
    (result.options.device_families): a report about one GPU family says nothing about another."""

    def decorate(run: Callable) -> Callable:
        @functools.wraps(run)
        def wrapped(result, analyses) -> list[Finding]:
            chosen = result.options.device_families
            return run(result, analyses) if chosen and set(chosen) & set(families) else []

        return wrapped

    return decorate


def gpu_ops(result, analyses, name: str) -> Iterator[Op]:
    """The delegated ops of type `name`."""
    for o in result.ops:
        if o.placement == "gpu" and o.op == name:
            yield analyses.model.graphs[o.subgraph].ops[o.index]


def node(op: Op) -> tuple[int, int]:
    """An op as a finding's node: (subgraph, op index)."""
    return op.graph.index, op.index


def finding(code: str, families: tuple[str, ...], what: str, report: str, op_nodes: tuple) -> Finding:
    """A DEV finding: always a warning, naming the families and the report, unverified here."""
    return Finding(code, "warning", f"{what} ({', '.join(families)}: reported in {report}; unverified here)", op_nodes)
