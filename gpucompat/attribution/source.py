"""The source of one op: the framework, the layer or module path, its class, and the raw names
the reading came from."""

from __future__ import annotations

from dataclasses import dataclass

# each framework's separator between a path's parts: Keras layers nest with "/", as their
# variables' paths do; PyTorch modules are dotted, as named_modules() names them; an ONNX node
# name is its own path (torch.onnx.export's are "/"-joined module paths)
SEPARATOR = {"keras": "/", "tensorflow": "/", "pytorch": ".", "onnx": "/"}


@dataclass(frozen=True)
class Source:
    """Where an op came from. `path` is None when no name could be read (never another op's
    layer); "" is the model's own top level (a PyTorch root module's forward, a Keras model's
    functional graph). `exact` is False for a best reading (a PyTorch path read without the
    module names, where a ModuleList's name is unknown and shown as "?")."""

    framework: str | None
    path: str | None
    kind: str | None
    exact: bool
    names: tuple[str, ...]

    def record(self) -> dict:
        """The JSON form (docs/json-schema.md `ops[].source`)."""
        return {"framework": self.framework, "path": self.path, "kind": self.kind, "exact": self.exact,
                "names": list(self.names)}


def unattributed(names: tuple[str, ...], framework: str | None = None) -> Source:
    """The source of an op whose names say nothing readable."""
    return Source(framework, None, None, False, names)
