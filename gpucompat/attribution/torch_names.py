"""PyTorch modules from litert-torch's locations.

litert-torch names each op after its `nn_module_stack`: the root module's qualified class, then
one `package.Class_attribute` part per module call, innermost last
(`__main__.Net/__main__.Block_0/__main__.Attn_attn/torch.nn.modules.linear.Linear_q`).
A ModuleList or ModuleDict has no forward of its own, so it is never called and never named:
`layers.0.attn` reads `Block_0/Attn_attn`. Without the model's module names the missing part is
shown as "?" (a best reading); with them (`named_modules()`), the reading is matched to the one
module it can be."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from gpucompat.attribution.reading import Reading
from gpucompat.errors import GpucompatError

_ROOT = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.[A-Z]\w*$")
_CALL = re.compile(r"^(?P<cls>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.[A-Za-z]\w*?)_(?P<attr>\w+)$")
# containers that run their children themselves: an index below one is the container's own
_CALLING_CONTAINERS = {"Sequential"}
_UNNAMED_CONTAINERS = {"ModuleList", "ModuleDict", "ParameterList", "ParameterDict"}
_EPILOGUE_PACKAGES = ("torch.nn.modules.activation.", "torch.nn.modules.batchnorm.")
# litert-torch's generative exporter wraps the user's model in an ExportableModule, as `module`
_WRAPPERS = {"ExportableModule"}


@dataclass(frozen=True)
class Call:
    """One module call in a location: its class (qualified) and the attribute it is held by."""

    cls: str
    attr: str

    @property
    def kind(self) -> str:
        return self.cls.rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=65536)
def calls(location: str) -> tuple[str, tuple[Call, ...]] | None:
    """The root module's class and the calls below it, or None when the location is not
    litert-torch's."""
    root, *rest = location.split("/")
    if not _ROOT.match(root):
        return None
    out = []
    for part in rest:
        m = _CALL.match(part)
        if not m:
            return None
        out.append(Call(m.group("cls"), m.group("attr")))
    return root, tuple(out)


def reading(root: str, chain: tuple[Call, ...]) -> Reading:
    """The dotted path the calls read as ("?" where a container's name is missing)."""
    parent = root.rsplit(".", 1)[-1]
    if parent in _WRAPPERS and chain:
        parent, chain = chain[0].kind, chain[1:]
    out = Reading([], [], root_kind=parent)
    for call in chain:
        if call.attr.isdigit() and parent not in _CALLING_CONTAINERS:
            out.parts.append("?")
            out.kinds.append(None)
            out.exact = False
        out.parts.append(call.attr)
        out.kinds.append(call.kind)
        parent = call.kind
    return out


def epilogue(chain: tuple[Call, ...]) -> bool:
    """True when the innermost module is an activation or a batch norm, which the converter
    fuses into the op before it."""
    return bool(chain) and chain[-1].cls.startswith(_EPILOGUE_PACKAGES)


class ModuleNames:
    """The model's modules as `named_modules()` lists them (from `--torch-module-names`): one per
    line, its dotted name, then optionally whitespace and its class (the root is the empty name,
    or a line holding only its class)."""

    def __init__(self, entries: list[tuple[str, str | None]]):
        self.kinds = {name: kind for name, kind in entries}
        self._by_last: dict[str, list[list[str]]] = {}
        for name in self.kinds:
            if name:
                parts = name.split(".")
                self._by_last.setdefault(parts[-1], []).append(parts)

    @classmethod
    def parse(cls, text: str) -> ModuleNames:
        """Read the file's text; raises ValueError naming the first line that is not a module."""
        entries = []
        for number, line in enumerate(text.splitlines(), 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) > 2 or not re.fullmatch(r"[\w.]+", fields[0]):
                raise ValueError(f"line {number} is not a module name and class: {line.strip()[:60]!r}")
            if len(fields) == 1 and "." in fields[0] and fields[0].rsplit(".", 1)[-1][:1].isupper():
                entries.append(("", fields[0]))  # the root: its class alone
            else:
                entries.append((fields[0], fields[1] if len(fields) > 1 else None))
        return cls(entries)

    def resolve(self, read: Reading) -> Reading | None:
        """The one module the reading can be, as an exact reading, else None: the reading's
        attributes, innermost last, must be the module's name parts in order, the parts between
        them unnamed containers (or of unknown class), leading wrapper parts aside."""
        named = [p for p in read.parts if p != "?"]
        if not named:
            return Reading([], [], read.root_kind)
        kinds = [k for p, k in zip(read.parts, read.kinds) if p != "?"]
        found = [cand for cand in self._by_last.get(named[-1], ()) if self._aligns(named, kinds, cand)]
        if len(found) != 1:
            return None
        parts = found[0]
        return Reading(parts, [self._kind(parts[: i + 1]) for i in range(len(parts))], read.root_kind)

    def _aligns(self, named: list[str], kinds: list[str], cand: list[str]) -> bool:
        i, j = len(named) - 1, len(cand) - 1
        while i >= 0 and j >= 0:
            here = self._kind(cand[: j + 1])
            if named[i] == cand[j] and (here is None or here == kinds[i]):
                i, j = i - 1, j - 1
            elif here is None or here in _UNNAMED_CONTAINERS:
                j -= 1
            else:
                return False
        return all(self._kind(cand[: k + 1]) in (None, *_UNNAMED_CONTAINERS) for k in range(j + 1))

    def _kind(self, parts: list[str]) -> str | None:
        kind = self.kinds.get(".".join(parts))
        return kind.rsplit(".", 1)[-1] if kind else None


def read_module_names(path: str) -> ModuleNames:
    """The module names file of `--torch-module-names`; a file that cannot be read, or a line
    that is not a module, is a GpucompatError naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise GpucompatError(f"{path}: cannot read the module names: {getattr(e, 'strerror', None) or e}") from None
    try:
        names = ModuleNames.parse(text)
    except ValueError as e:
        raise GpucompatError(f"{path}: {e} (expected named_modules() output: a dotted name, then its class)") from None
    if not names.kinds:
        raise GpucompatError(f"{path}: no module names in the file")
    return names
