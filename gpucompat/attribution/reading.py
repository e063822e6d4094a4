"""One location read as a path in the user's code."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Reading:
    """A path's parts (outermost first), the class of the layer or module each part names (None
    where unknown), the class of the top level, and whether every part is the real name."""

    parts: list[str]
    kinds: list[str | None]
    root_kind: str | None = None
    exact: bool = True

    def kind_at(self, depth: int) -> str | None:
        """The class of the path's first `depth` parts (the top level at 0)."""
        return self.kinds[depth - 1] if depth else self.root_kind


def common_depth(readings: list[Reading]) -> int:
    """How many leading parts every reading shares: the innermost layer holding them all. An
    unknown part ("?") two readings share may be two containers: the shared path stops before it
    unless what follows it is shared too."""
    first = readings[0].parts
    depth = len(first)
    for r in readings[1:]:
        depth = min(depth, len(r.parts))
        depth = next((i for i in range(depth) if r.parts[i] != first[i]), depth)
    while depth and first[depth - 1] == "?":
        depth -= 1
    return depth
