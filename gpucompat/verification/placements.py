"""Where the simulated delegate puts each op for hybrid execution: `check`'s placement, per
subgraph, under a profile and check options."""

from __future__ import annotations

from gpucompat import ir


def placements_by_subgraph(model: ir.Model, profile_name: str, options=None) -> dict[int, list[str]]:
    """"gpu" / "cpu" per op, per subgraph index, under the profile and check options (the defaults
    when None)."""
    from gpucompat.placement import check_model
    from gpucompat.rules.support import registry
    from gpucompat.rules.support.profile import Options

    result = check_model(model, registry.get(profile_name), options or Options())
    where: dict[int, list[str]] = {i: [] for i in range(len(model.graphs))}
    for o in result.ops:
        where[o.subgraph].append(o.placement)
    return where


def placements(model: ir.Model, profile_name: str) -> list[str]:
    """Where the simulated delegate puts each op of the main subgraph ("gpu" / "cpu")."""
    return placements_by_subgraph(model, profile_name)[0]
